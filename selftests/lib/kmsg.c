// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: the kernel log reader - /dev/kmsg records, the stack dumps
 * in them (fault injection reports, warn_alloc(), any other), the
 * allocation site of a fault injection stack, and the records that no
 * test should cause. See netkit-lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netkit-lib.h"

/* An event counted in the whole run's counts and the current part's. */
#define KM_COUNT(k, field)			\
	do {					\
		(k)->total.field++;		\
		if ((k)->cur)			\
			(k)->cur->field++;	\
	} while (0)

/* A problem, counted. */
#define KM_PROBLEM(k, ...)			\
	do {					\
		KM_COUNT(k, problems);		\
		(k)->problem(__VA_ARGS__);	\
	} while (0)

/* The frames of the allocator and its instrumentation, by prefix. */
static const char *const alloc_prefix[] = {
	"dump_backtrace", "dump_stack", "show_stack", "should_fail", "__should_fail",
	"prepare_alloc_pages", "__alloc_pages", "alloc_pages",
	"__get_free_pages", "get_zeroed_page", "__folio_alloc", "folio_alloc",
	"alloc_slab_page", "allocate_slab", "new_slab", "___slab_alloc",
	"__slab_alloc", "slab_alloc", "slab_pre_alloc_hook",
	"kmem_cache_alloc", "__kmem_cache_alloc", "kmem_cache_zalloc",
	"kmalloc", "__kmalloc", "kzalloc", "kvmalloc", "__kvmalloc", "kvzalloc",
	"kcalloc", "kmemdup", "kstrdup", "kstrndup", "kvasprintf", "kasprintf",
	"krealloc", "__do_krealloc", "kvrealloc", "__vmalloc", "vmalloc",
	"vzalloc", "vm_area_alloc_pages", "__alloc_percpu", "pcpu_",
	"kasan_", "__kasan_", "____kasan_", "kmemleak_", "create_object",
	"__create_object", "mem_pool_alloc", "stack_depot_", "__stack_depot_",
	"__alloc_skb", "alloc_skb", "__netdev_alloc_skb",
	"radix_tree_node_alloc", "__radix_tree_preload", "radix_tree_preload",
	"idr_preload", "idr_get_free", "idr_alloc", "xas_",
};

static int is_alloc_frame(const char *f)
{
	size_t i;

	for (i = 0; i < sizeof(alloc_prefix) / sizeof(alloc_prefix[0]); i++)
		if (!strncmp(f, alloc_prefix[i], strlen(alloc_prefix[i])))
			return 1;
	return 0;
}

void nk_site_add(struct nk_km_count *s, const char *name, const char *via)
{
	int i;

	for (i = 0; i < s->nsites; i++) {
		if (!strcmp(s->sites[i].name, name)) {
			s->sites[i].count++;
			return;
		}
	}
	if (s->nsites == NK_MAX_SITES)
		return;
	snprintf(s->sites[i].name, sizeof(s->sites[i].name), "%s", name);
	snprintf(s->sites[i].via, sizeof(s->sites[i].via), "%s", via);
	s->sites[i].count = 1;
	s->nsites++;
}

/*
 * A dump in the kernel log: the fault injection notice or warn_alloc()'s
 * message, then dump_stack()'s lines (CPU:, Hardware name:, Call Trace:,
 * " <TASK>", one line per frame, the user registers of the syscall entry,
 * " </TASK>"). Only dump_stack() callers serialise against each other
 * (printk_cpu_sync); any other printk of another CPU - the linkwatch
 * work's "IPv6: ADDRCONF(NETDEV_CHANGE): ...: link becomes ready" for a
 * device that was just set up, say - can land between two lines of a
 * dump. Such a record does not end the dump (which ends with " </TASK>"):
 * it is read as a record of its own (interleaved) and the dump goes on.
 */
enum { KM_NONE, KM_FI, KM_FI_STACK, KM_WARN, KM_WARN_STACK, KM_OTHER_STACK };

/*
 * Functions that dump_stack() when an allocation under them failed:
 * __register_sysctl_table() on any failure (fs/proc/proc_sysctl.c).
 */
static const char *const dumps_on_failure[] = {
	"__register_sysctl_table",
};

/*
 * The lines of a dump_stack() (x86-64, arm64 and s390, 6.1) other than
 * its frames; arm64 writes "Call trace:".
 */
static const char *const dump_prefix[] = {
	"CPU: ", "Hardware name: ", "Workqueue: ", "Call Trace:", "Call trace:",
	"RIP: ", "Code: ", "RSP: ", "RAX: ", "RDX: ", "RBP: ", "R10: ", "R13: ",
};

static int is_dump_line(const char *s)
{
	size_t i;

	if (s[0] == ' ')
		return 1;
	for (i = 0; i < sizeof(dump_prefix) / sizeof(dump_prefix[0]); i++)
		if (!strncmp(s, dump_prefix[i], strlen(dump_prefix[i])))
			return 1;
	return 0;
}

static void km_print_lines(struct nk_kmsg *k)
{
	int i;

	for (i = 0; i < k->nlines; i++)
		printf("#   %s\n", k->lines[i]);
}

/* complete: the dump's " </TASK>" was read. */
static void km_finish(struct nk_kmsg *k, int complete)
{
	char via[160] = "";
	int i, site = -1, nvia = 0;
	size_t len = 0;

	if (k->mode == KM_NONE)
		return;
	for (i = 0; i < k->nframes; i++) {
		if (!is_alloc_frame(k->frames[i])) {
			site = i;
			break;
		}
	}
	if (!complete && k->mode != KM_WARN && k->mode != KM_WARN_STACK)
		KM_COUNT(k, incomplete);
	if (k->mode == KM_FI || k->mode == KM_FI_STACK) {
		if (site < 0) {
			/*
			 * Not a failure by itself: where the fault hit is
			 * reported, what the call did is checked by its
			 * result and the state checks (an errno that only
			 * the site could explain still fails).
			 */
			KM_COUNT(k, unattributed);
			if (k->unattributed_shown++ < 5) {
				k->note("a fault injection stack %s no caller of the allocator: not attributed (reported, not a failure); its %d lines:",
					complete ? "has" : "ended early, with",
					k->nlines);
				km_print_lines(k);
			}
		} else {
			for (i = site + 1; i < k->nframes && nvia < 3; i++, nvia++)
				len += snprintf(via + len, sizeof(via) - len, "%s%s",
						nvia ? " < " : "", k->frames[i]);
			KM_COUNT(k, attributed);
			if (k->cur)
				nk_site_add(k->cur, k->frames[site], via);
			nk_site_add(&k->total, k->frames[site], via);
			snprintf(k->last_site, sizeof(k->last_site), "%s < %s",
				 k->frames[site], via);
		}
	} else if (k->mode == KM_OTHER_STACK) {
		for (i = 0; site >= 0 && k->fi_seen &&
		     i < (int)(sizeof(dumps_on_failure) / sizeof(dumps_on_failure[0])); i++) {
			if (!strcmp(k->frames[site], dumps_on_failure[i])) {
				KM_COUNT(k, alloc_warn);
				site = -2;
				break;
			}
		}
		if (site != -2) {
			KM_PROBLEM(k, "kernel stack trace that no injected fault explains:");
			km_print_lines(k);
		}
	}
	k->mode = KM_NONE;
	k->nframes = k->nlines = 0;
}

static const char *const bad_pattern[] = {
	"WARNING:", "BUG:", "cut here", "Oops", "KASAN", "UBSAN",
	"general protection", "kernel BUG", "unregister_netdevice: waiting",
	"possible circular", "suspicious RCU", "INFO: task", "kmemleak:",
	"refcount_t", "list_add corruption", "list_del corruption",
	"sysfs: cannot create duplicate",
};

/*
 * The fault injection reports must stay in the log buffer: the notice is
 * KERN_NOTICE, the stack dump_stack()'s KERN_DEFAULT, i.e.
 * default_message_loglevel (netkit_faultinject.sh sets both out of
 * reach of the console).
 */
static void km_level(struct nk_kmsg *k, int level)
{
	if (level < k->con_level && !k->on_console++)
		KM_PROBLEM(k, "a fault injection report line went to the console (level %d, console_loglevel %d)",
			   level, k->con_level);
}

/* A record that is not part of a dump: the bad patterns, verbose. */
static void kmsg_other(struct nk_kmsg *k, const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(bad_pattern) / sizeof(bad_pattern[0]); i++) {
		if (strstr(s, bad_pattern[i])) {
			KM_PROBLEM(k, "kernel log: %s", s);
			return;
		}
	}
	if (k->verbose)
		printf("# kmsg: %s\n", s);
}

static void kmsg_line(struct nk_kmsg *k, const char *s, int level)
{
	const char *f;
	size_t n;

	if (!strncmp(s, "FAULT_INJECTION: forcing a failure.", 35)) {
		km_level(k, level);
		km_finish(k, 0);
		k->mode = KM_FI;
		k->fi_seen++;
		KM_COUNT(k, fi_reports);
		if (strstr(s, "name fail_page_alloc"))
			KM_COUNT(k, fi_page);
		else
			KM_COUNT(k, fi_slab);
		return;
	}
	if (strstr(s, "page allocation failure:") || strstr(s, "vmalloc error:") ||
	    strstr(s, "percpu: allocation failed")) {
		km_finish(k, 0);
		k->mode = KM_WARN;
		KM_COUNT(k, alloc_warn);
		if (k->verbose)
			printf("# kmsg: %s\n", s);
		return;
	}
	if (k->mode != KM_NONE && !is_dump_line(s)) {
		/* Another CPU's record amid the dump: the dump goes on. */
		KM_COUNT(k, interleaved);
		kmsg_other(k, s);
		return;
	}
	if (k->mode == KM_FI || k->mode == KM_FI_STACK)
		km_level(k, level);
	if (!strcmp(s, "Call Trace:") || !strcmp(s, "Call trace:")) {
		if (k->mode == KM_FI)
			k->mode = KM_FI_STACK;
		else if (k->mode == KM_WARN)
			k->mode = KM_WARN_STACK;
		else {
			km_finish(k, 0);
			k->mode = KM_OTHER_STACK;
		}
		return;
	}
	if (!strncmp(s, "CPU: ", 5)) {
		/* The first line of a dump: in a stack, a new dump starts. */
		if (k->mode != KM_FI && k->mode != KM_WARN)
			km_finish(k, 0);
		return;
	}
	if (k->mode < KM_FI_STACK || k->mode == KM_WARN) {
		if (k->mode == KM_NONE)
			kmsg_other(k, s);
		return;
	}
	/* In the stack: frames, " <TASK>", the user registers, " </TASK>". */
	f = s + strspn(s, " ");
	if (k->nlines < NK_KM_FRAMES)
		snprintf(k->lines[k->nlines++], sizeof(k->lines[0]), "%s", f);
	if (!strncmp(f, "</TASK>", 7)) {
		km_finish(k, 1);
		return;
	}
	if (s[0] != ' ' || f[0] == '?' || f[0] == '<' || f[0] == '(')
		return;
	/* s390 puts the address first: " [<0000000000abcdef>] name+off/len". */
	if (!strncmp(f, "[<", 2)) {
		f = strstr(f, ">] ");
		if (!f)
			return;
		f += 3;
	}
	n = strcspn(f, "+ ");
	if (n >= sizeof(k->frames[0]))
		n = sizeof(k->frames[0]) - 1;
	if (k->nframes < NK_KM_FRAMES) {
		memcpy(k->frames[k->nframes], f, n);
		k->frames[k->nframes++][n] = 0;
	}
#ifdef __aarch64__
	/*
	 * arm64 ends a dump without a marker: its last frame is the entry
	 * from user space (el0t_64_sync) or a kernel thread's first
	 * (ret_from_fork).
	 */
	if (!strncmp(f, "el0t_64_sync+", 13) || !strncmp(f, "ret_from_fork+", 14))
		km_finish(k, 1);
#endif
#ifdef __s390x__
	/*
	 * Nor does s390: its last frame is the entry from user space
	 * (system_call) or a kernel thread's first (ret_from_fork); an
	 * unreliable frame is in parentheses.
	 */
	if (!strncmp(f, "system_call+", 12) || !strncmp(f, "ret_from_fork+", 14))
		km_finish(k, 1);
#endif
}

/* Reads one record: its length, 0 if there is none now, -1 if lost. */
static ssize_t kmsg_read(struct nk_kmsg *k, char *rec, size_t size)
{
	ssize_t len;

	if (k->plant) {
		if (!*k->plant || !**k->plant)
			return 0;
		len = snprintf(rec, size, "%s", *k->plant++);
		return len < (ssize_t)size ? len : (ssize_t)size - 1;
	}
	len = read(k->fd, rec, size - 1);
	if (len < 0 && errno == EPIPE)
		return -1;
	return len < 0 ? 0 : len;
}

/*
 * Waits up to ms for more records; 0 if none can come. A record that
 * another CPU reserved but has not finished yet stops the reader (the
 * printk ring buffer hands out records in order) although the records
 * after it, the rest of our dump, are written.
 */
static int kmsg_wait(struct nk_kmsg *k, int ms)
{
	struct pollfd pfd = { .fd = k->fd, .events = POLLIN };

	if (k->plant) {
		if (!*k->plant)
			return 0;
		k->plant++;	/* the "" that stood for EAGAIN */
		return 1;
	}
	return poll(&pfd, 1, ms) > 0;
}

void nk_kmsg_drain(struct nk_kmsg *k)
{
	char rec[2048], *text, *end;
	ssize_t len;
	double waited = 0, t;

	if (k->fd < 0 && !k->plant)
		return;
	for (;;) {
		len = kmsg_read(k, rec, sizeof(rec));
		if (len < 0) {
			KM_COUNT(k, lost);
			continue;
		}
		if (len == 0) {
			/*
			 * The call has returned, so its dumps are written:
			 * one that is not complete yet waits for its end
			 * (up to 0.5 s; after 3 such timeouts, no more).
			 */
			if (k->mode == KM_NONE || k->wait_timeouts >= 3)
				break;
			t = nk_now();
			if (waited < 0.5 && kmsg_wait(k, 50)) {
				waited += nk_now() - t;
				continue;
			}
			if (!k->plant)
				k->wait_timeouts++;
			break;
		}
		rec[len] = 0;
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = 0;
		kmsg_line(k, text, atoi(rec) & 7);
	}
	km_finish(k, 0);
}

int nk_kmsg_open(struct nk_kmsg *k)
{
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0 || lseek(k->fd, 0, SEEK_END) < 0)
		return -errno;
	return 0;
}

void nk_kmsg_attribution_check(struct nk_kmsg *k)
{
	if (k->cur && k->cur->fi_reports && !k->cur->attributed)
		KM_PROBLEM(k, "none of its %d fault injection stacks could be attributed to a caller of the allocator",
			   k->cur->fi_reports);
}

void nk_kmsg_reset(struct nk_kmsg *k)
{
	k->mode = KM_NONE;
	k->nframes = k->nlines = k->fi_seen = 0;
	k->on_console = k->unattributed_shown = k->wait_timeouts = 0;
	k->last_site[0] = 0;
}

static int site_cmp(const void *a, const void *b)
{
	const struct nk_site *x = a, *y = b;

	return y->count - x->count ?: strcmp(x->name, y->name);
}

void nk_sites_print(struct nk_km_count *s, const char *indent)
{
	int i;

	qsort(s->sites, s->nsites, sizeof(s->sites[0]), site_cmp);
	for (i = 0; i < s->nsites; i++)
		printf("#%s%-28s x%-4d (< %s)\n", indent, s->sites[i].name,
		       s->sites[i].count, s->sites[i].via);
}
