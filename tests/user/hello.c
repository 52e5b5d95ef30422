/*
 * hello.c - the first user program: printf through glibc's stdio, its
 * arguments, and an exit status the test checks (tests/user/run.sh).
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	printf("hello from user space: argc=%d\n", argc);
	for (int i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	printf("HOME=%s\n", getenv("HOME") ? getenv("HOME") : "(unset)");
	return argc > 1 ? atoi(argv[argc - 1]) : 0;
}
