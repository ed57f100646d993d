// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: the kernel log reader's self-test (netkit-faultinject -S), without
 * the kernel: planted /dev/kmsg records (a recorded dump with other CPUs'
 * records amid it, cut short, without a caller, with a WARNING or a stray
 * stack, ...) must give the site, the problems and the errno verdict each
 * case expects. See netkit-lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netkit-lib.h"

/* The errno verdict of a case that the caller's err_class() fails. */
#define FAILS	(-2)

/*
 * The dump_stack() of a fault injected into the first allocation of an
 * RTM_NEWLINK request (the netlink skb of send()), as /dev/kmsg gives it
 * on this kernel (the lines and frames of dumps recorded in
 * netkit_faultinject on 6.1.192 with the series: no "Hardware name:"
 * line, unreliable frames with "? ", the user registers before
 * " </TASK>"); the self-test cases below
 * are this dump with records of other CPUs planted in it, cut short, or
 * changed. "" marks a read that finds no record yet (EAGAIN) with more to
 * come.
 */
#define ST_NOTICE "5,9001,137782246,-;FAULT_INJECTION: forcing a failure.\\x0aname failslab, interval 1, probability 0, space 0, times 0"
#define ST_CPU "7,9002,137782430,-;CPU: 0 PID: 1873 Comm: netkit-faultinj Tainted: G           OE      6.1.192+ #2 "
#define ST_HW "7,9003,137782440,-;Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014"
#define ST_TRACE "7,9004,137782465,-;Call Trace:"
#define ST_TASK "7,9005,137782508,-; <TASK>"
#define ST_ALLOC \
	"7,9006,137782537,-; dump_stack_lvl+0x33/0x42", \
	"7,9007,137782599,-; should_fail_ex+0x116/0x139", \
	"7,9008,137782623,-; should_failslab+0xa/0x12", \
	"7,9009,137782646,-; kmem_cache_alloc_node+0x3b/0x124", \
	"7,9010,137782671,-; __alloc_skb+0x73/0x109"
#define ST_CALLER \
	"7,9011,137782691,-; netlink_sendmsg+0x1a9/0x314", \
	"7,9012,137782713,-; sock_sendmsg_nosec+0xe/0x18", \
	"7,9013,137782728,-; __sys_sendto+0xed/0x112", \
	"7,9014,137782748,-; __x64_sys_sendto+0x20/0x23", \
	"7,9015,137782764,-; do_syscall_64+0x39/0x46", \
	"7,9016,137782785,-; entry_SYSCALL_64_after_hwframe+0x4b/0xb5"
#define ST_REGS \
	"7,9017,137783148,-;RIP: 0033:0x458e29", \
	"7,9018,137783185,-;Code: ff ff ff ff eb b7 66 2e 0f 1f 84 00 00 00 00 00 90 80 3d ad 82 07 00 00 41 89 ca 74 1c 45 31 c9 45 31 c0 b8 2c 00 00 00 0f 05 <48> 3d 00 f0 ff ff 77 67 c3 66 0f 1f 44 00 00 55 ", \
	"7,9019,137783204,-;RSP: 002b:00007ffca1df9968 EFLAGS: 00000246 ORIG_RAX: 000000000000002c", \
	"7,9020,137783239,-;RAX: ffffffffffffffda RBX: 00007ffca1df9ad0 RCX: 0000000000458e29", \
	"7,9021,137783251,-;RDX: 0000000000000020 RSI: 00007ffca1df9ad0 RDI: 0000000000000003", \
	"7,9022,137783260,-;RBP: 000000000000000f R08: 0000000000000000 R09: 0000000000000000", \
	"7,9023,137783268,-;R10: 0000000000000000 R11: 0000000000000246 R12: 0000000000000000", \
	"7,9024,137783276,-;R13: 00000000004cc090 R14: 00007ffca1df9ff0 R15: 0000000000000069"
#define ST_END "7,9025,137783292,-; </TASK>"
#define ST_SITE "netlink_sendmsg < sock_sendmsg_nosec < __sys_sendto < __x64_sys_sendto"
/* What another CPU logs meanwhile (the linkwatch work, a netlink warning). */
#define ST_LINKWATCH "6,9100,137782610,-;IPv6: ADDRCONF(NETDEV_CHANGE): nkfi3p: link becomes ready"
#define ST_LEFTOVER "4,9101,137782611,-;netlink: 4 bytes leftover after parsing attributes in process `ip'."
#define ST_WARNING "4,9102,137782612,-;WARNING: CPU: 0 PID: 12 at net/core/dev.c:10363 netdev_run_todo+0x2d2/0x3f0"

static const char *const st_plain[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_CALLER,
	ST_REGS, ST_END, NULL
};
/* The flake this reader once had: a record of the linkwatch work amid the frames. */
static const char *const st_amid_frames[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK,
	"7,9006,137782537,-; dump_stack_lvl+0x33/0x42",
	"7,9007,137782599,-; should_fail_ex+0x116/0x139",
	ST_LINKWATCH,
	"7,9008,137782623,-; should_failslab+0xa/0x12",
	"7,9009,137782646,-; kmem_cache_alloc_node+0x3b/0x124",
	"6,9103,137782650,-;IPv6: ADDRCONF(NETDEV_CHANGE): nkfi3: link becomes ready",
	"7,9010,137782671,-; __alloc_skb+0x73/0x109",
	ST_CALLER, ST_REGS, ST_END, NULL
};
/* ... and before the Call Trace, around a "Hardware name:" line (which
 * this kernel does not print, a DMI one does). */
static const char *const st_amid_head[] = {
	ST_NOTICE, ST_LINKWATCH, ST_CPU, ST_HW, ST_LEFTOVER, ST_TRACE, ST_TASK,
	ST_ALLOC, ST_CALLER, ST_REGS, ST_END, NULL
};
/* The registers' line split by another CPU's record (pr_cont). */
static const char *const st_amid_regs[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_CALLER,
	"7,9017,137783148,-;RIP: 0033:0x458e29",
	"7,9019,137783204,-;RSP: 002b:00007ffca1df9968 EFLAGS: 00000246",
	ST_LINKWATCH,
	"7,9020,137783205,-; ORIG_RAX: 000000000000002c",
	"7,9021,137783239,-;RAX: ffffffffffffffda RBX: 00007ffca1df9ad0 RCX: 0000000000458e29",
	ST_END, NULL
};
/* The reader stopped at a record another CPU had not finished. */
static const char *const st_reader_stopped[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, "", ST_LINKWATCH,
	ST_CALLER, ST_REGS, ST_END, NULL
};
static const char *const st_warning_amid[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_WARNING,
	ST_CALLER, ST_REGS, ST_END, NULL
};
static const char *const st_stray_stack[] = {
	ST_CPU, ST_TRACE, ST_TASK,
	"7,9006,137782537,-; dump_stack_lvl+0x33/0x42",
	"7,9007,137782599,-; netkit_xmit+0x1a2/0x3d0",
	"7,9008,137782623,-; dev_hard_start_xmit+0x8d/0x1d0",
	ST_END, NULL
};
static const char *const st_no_caller[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC,
	"7,9011,137782691,-; ? netlink_sendmsg+0x1a9/0x314",
	ST_END, NULL
};
static const char *const st_one_without_caller[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_CALLER,
	ST_REGS, ST_END,
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC,
	"7,9011,137782691,-; ? netlink_sendmsg+0x1a9/0x314",
	ST_END, NULL
};
static const char *const st_no_end[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_CALLER, NULL
};
static const char *const st_no_end_no_caller[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, "", NULL
};
static const char *const st_on_console[] = {
	"4,9001,137782246,-;FAULT_INJECTION: forcing a failure.\\x0aname failslab, interval 1, probability 0, space 0, times 0",
	ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_CALLER, ST_REGS, ST_END, NULL
};
static const char *const st_explained[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK,
	"7,9006,137782537,-; dump_stack_lvl+0x33/0x42",
	"7,9007,137782599,-; should_fail_ex+0x116/0x139",
	"7,9008,137782623,-; should_failslab+0xa/0x12",
	"7,9009,137782646,-; __kmalloc_node_track_caller+0x4a/0x126",
	"7,9010,137782671,-; kvasprintf+0x6b/0xd0",
	"7,9011,137782691,-; kobject_set_name_vargs+0x1a/0x90",
	ST_LINKWATCH,
	"7,9012,137782713,-; dev_set_name+0x53/0x70",
	"7,9013,137782728,-; netdev_register_kobject+0x4e/0x170",
	"7,9014,137782748,-; register_netdevice+0x3f0/0x5e0",
	ST_END, NULL
};
/* A failure under __register_sysctl_table() dumps the stack once more. */
static const char *const st_sysctl_dump[] = {
	ST_NOTICE, ST_CPU, ST_TRACE, ST_TASK, ST_ALLOC, ST_CALLER, ST_END,
	ST_CPU, ST_TRACE, ST_TASK,
	"7,9030,137783300,-; dump_stack_lvl+0x33/0x42",
	ST_LINKWATCH,
	"7,9031,137783310,-; __register_sysctl_table+0x4c4/0x5a0",
	"7,9032,137783320,-; __devinet_sysctl_register+0xb1/0x150",
	ST_END, NULL
};
#ifdef __aarch64__
/*
 * arm64's dump_stack() of the same fault: "Call trace:", a dump_backtrace
 * frame first, the syscall's entry from user space (el0t_64_sync) last
 * and no end marker after it.
 */
#define ST_A64_SITE "netlink_sendmsg < sock_sendmsg_nosec < __sys_sendto < __arm64_sys_sendto"
static const char *const st_arm64[] = {
	ST_NOTICE,
	"7,9002,137782430,-;CPU: 1 PID: 1873 Comm: netkit-faultinj Not tainted 6.1.192+ #1",
	"7,9003,137782440,-;Hardware name: linux,dummy-virt (DT)",
	"7,9004,137782465,-;Call trace:",
	"7,9005,137782508,-; dump_backtrace+0xe4/0x140",
	"7,9006,137782520,-; show_stack+0x20/0x30",
	"7,9007,137782537,-; dump_stack_lvl+0x64/0x80",
	"7,9008,137782540,-; dump_stack+0x18/0x34",
	"7,9009,137782599,-; should_fail_ex+0x1c0/0x1e4",
	ST_LINKWATCH,
	"7,9010,137782623,-; should_failslab+0x14/0x20",
	"7,9011,137782646,-; kmem_cache_alloc_node+0x60/0x2c0",
	"7,9012,137782671,-; __alloc_skb+0xa0/0x1a0",
	"7,9013,137782691,-; netlink_sendmsg+0x1a0/0x3f0",
	"7,9014,137782713,-; sock_sendmsg_nosec+0x18/0x30",
	"7,9015,137782728,-; __sys_sendto+0xe0/0x130",
	"7,9016,137782748,-; __arm64_sys_sendto+0x2c/0x40",
	"7,9017,137782764,-; invoke_syscall+0x48/0x114",
	"7,9018,137782770,-; el0_svc_common.constprop.0+0x44/0xec",
	"7,9019,137782775,-; do_el0_svc+0x2c/0xc0",
	"7,9020,137782780,-; el0_svc+0x2c/0x84",
	"7,9021,137782785,-; el0t_64_sync_handler+0xbc/0x140",
	"7,9022,137782790,-; el0t_64_sync+0x18c/0x190",
	NULL
};
#endif

static const struct st_case {
	const char *name;
	const char *const *recs;
	int err;		/* the call's errno (0: not asked) */
	const char *site;	/* the attributed site ("": none) */
	int problems, attributed, unattributed, interleaved, incomplete;
	int on_console;
	int err_class;		/* -1 passes, 0 explained, FAILS */
} st_cases[] = {
	{ "plain", st_plain, ENOMEM, ST_SITE, 0, 1, 0, 0, 0, 0, -1 },
	{ "another CPU's records amid the frames (a flake once)", st_amid_frames,
	  ENOMEM, ST_SITE, 0, 1, 0, 2, 0, 0, -1 },
	{ "another CPU's records before the Call Trace, one at console level",
	  st_amid_head, ENOMEM, ST_SITE, 0, 1, 0, 2, 0, 0, -1 },
	{ "another CPU's record splits the registers' line", st_amid_regs,
	  ENOMEM, ST_SITE, 0, 1, 0, 1, 0, 0, -1 },
	{ "the reader stops amid the dump and waits for its end",
	  st_reader_stopped, ENOMEM, ST_SITE, 0, 1, 0, 1, 0, 0, -1 },
	{ "a WARNING amid the dump still fails", st_warning_amid, ENOMEM,
	  ST_SITE, 1, 1, 0, 1, 0, 0, -1 },
	{ "a stack that no injected fault explains fails", st_stray_stack, 0,
	  "", 1, 0, 0, 0, 0, 0, -1 },
	{ "one stack without a caller among others is reported, not attributed, and passes",
	  st_one_without_caller, ENOMEM, ST_SITE, 0, 1, 1, 0, 0, 0, -1 },
	{ "no stack with a caller fails (the stacks are not read right)",
	  st_no_caller, ENOMEM, "", 1, 0, 1, 0, 0, 0, -1 },
	{ "a stack without a caller and EINVAL fails (errno not explained)",
	  st_no_caller, EINVAL, "", 1, 0, 1, 0, 0, 0, FAILS },
	{ "a dump without its end is attributed to the caller it has", st_no_end,
	  ENOMEM, ST_SITE, 0, 1, 0, 0, 1, 0, -1 },
	{ "a dump cut off before its caller is not attributed", st_no_end_no_caller,
	  ENOMEM, "", 1, 0, 1, 0, 1, 0, -1 },
	{ "a fault injection notice on the console fails", st_on_console, ENOMEM,
	  ST_SITE, 1, 1, 0, 0, 0, 1, -1 },
	{ "EINVAL of dev_set_name() is explained, a record amid its frames",
	  st_explained, EINVAL, "kobject_set_name_vargs < dev_set_name < netdev_register_kobject",
	  0, 1, 0, 1, 0, 0, 0 },
	{ "__register_sysctl_table()'s own dump is explained, a record amid it",
	  st_sysctl_dump, ENOMEM, ST_SITE, 0, 1, 0, 1, 0, 0, -1 },
#ifdef __aarch64__
	{ "arm64's dump, ended by its entry from user space, a record amid it",
	  st_arm64, ENOMEM, ST_A64_SITE, 0, 1, 0, 1, 0, 0, -1 },
#endif
};

int nk_kmsg_selftest(struct nk_kmsg *k,
		     int (*err_class)(int err, const char *site),
		     int nexplained, int *caseno)
{
	static struct nk_km_count s;
	const struct st_case *c;
	char got[512];
	int i, cls, want, good, bad = 0;
	size_t n;

	k->con_level = 5;
	for (i = 0; i < (int)(sizeof(st_cases) / sizeof(st_cases[0])); i++) {
		c = &st_cases[i];
		memset(&s, 0, sizeof(s));
		k->cur = &s;
		*caseno = i + 1;
		nk_kmsg_reset(k);
		k->plant = c->recs;
		while (*k->plant) {
			nk_kmsg_drain(k);	/* the drains before and after a call */
			if (*k->plant && !**k->plant)
				k->plant++;
		}
		k->plant = NULL;
		nk_kmsg_attribution_check(k);
		cls = c->err ? err_class(c->err, k->last_site) : -1;
		want = c->err_class == FAILS ? nexplained : c->err_class;
		n = strlen(c->site);
		good = (n ? !strncmp(k->last_site, c->site, n) : !k->last_site[0]) &&
		       s.problems == c->problems && s.attributed == c->attributed &&
		       s.unattributed == c->unattributed &&
		       s.interleaved == c->interleaved &&
		       s.incomplete == c->incomplete &&
		       !!k->on_console == c->on_console && cls == want;
		snprintf(got, sizeof(got),
			 "site '%s', problems %d, attributed %d, not attributed %d, amid %d, without end %d, on console %d, %s %s",
			 k->last_site, s.problems, s.attributed, s.unattributed,
			 s.interleaved, s.incomplete, k->on_console,
			 c->err ? nk_errname(c->err) : "no call",
			 cls < 0 ? "passes" : cls < nexplained ? "explained" : "FAILS");
		nk_report(good, "self-test %d, %s: %s", i + 1, c->name, got);
		if (!good) {
			printf("#   expected site '%s', problems %d, attributed %d, not attributed %d, amid %d, without end %d, on console %d, errno class %d\n",
			       c->site, c->problems, c->attributed, c->unattributed,
			       c->interleaved, c->incomplete, c->on_console, want);
			bad++;
		}
	}
	k->cur = NULL;
	printf("# self-test: %d cases, %d wrong\n", i, bad);
	return !bad;
}
