/*
 * hostile_x86.S - the looping x86_64 hostile guests of tests/vmm/mkelf.c
 * (32-bit protected mode at 0x100000, paging off). Not built: their bytes
 * are in mkelf.c, from
 *   as --32 -o x.o hostile_x86.S && objcopy -O binary -j .text.NAME x.o NAME.bin
 */
	.section .text.deep, "ax"
	.code32
0:
	mov $0x3f8, %dx
	mov $0x100000 + tag, %esi
	mov $7, %ecx
	cld
	rep outsb
	mov $13000, %ebx
1:	mov $0x100000 + open, %esi
	mov $4, %ecx
	rep outsb
	dec %ebx
	jnz 1b
	mov $'1', %al
	out %al, %dx
	mov $13000, %ebx
	mov $'}', %al
2:	out %al, %dx
	dec %ebx
	jnz 2b
	mov $'\n', %al
	out %al, %dx
	mov $0, %al
	out %al, $0xe9
	out %al, $0xf4
3:	hlt
	jmp 3b
tag:	.ascii "RESULT "
open:	.ascii "{\"\":"
	.section .text.flood, "ax"
	.code32
0:
	mov $0xe9, %dx
	mov $0x100000, %esi
	mov $0x1000000, %ecx
	cld
	rep outsb
	jmp 0b
	.section .text.garbage, "ax"
	.code32
0:
	mov $0x3f8, %dx
1:	mov $0xffffffff, %eax
	outb %al, %dx
	outw %ax, %dx
	outl %eax, %dx
	inb %dx, %al
	inw %dx, %ax
	inl %dx, %eax
	inc %dx
	cmp $0x400, %dx
	jne 1b
	mov $0xab, %al
	out %al, $0xe9
	mov $0, %al
	out %al, $0xe9
	out %al, $0xf4
2:	hlt
	jmp 2b
