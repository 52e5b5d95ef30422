/*
 * list.h - intrusive doubly linked lists.
 */
#ifndef MM_LIST_H
#define MM_LIST_H

#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

static inline void list_init(struct list_head *h)
{
	h->next = h->prev = h;
}

static inline int list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_add(struct list_head *n, struct list_head *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	list_add(n, h->prev);
}

static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = NULL;
}

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)

#endif
