/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netkit-lib: the plumbing of the guest test helpers (selftests/netkit-*.c,
 * tcx-*.c), each piece once. The helpers keep only their own tables,
 * models and loops.
 *
 *   testing.c  errno names, the clock, the seeded RNG, "ok"/"not ok" lines
 *   netlink.c  the rtnetlink message builder, talk, extack, dumps, and the
 *              device census (the netkit devices of a namespace)
 *   system.c   network and user namespaces, capabilities, /proc files,
 *              slab counts around repeated operations, a forked child
 *              with a result
 *   bpf.c      the bpf(2) wrappers: load, attach, detach, query, link
 *              create/update/detach, object info, id walks, the census
 *              of programs and links
 *   kmsg.c     the kernel log reader: /dev/kmsg, the stack dumps in it,
 *              the allocation site of a fault injection stack, records
 *              that no test should cause; kmsg-selftest.c its self-test
 *
 * Why a library in selftests/lib/ and not the header-only netkit-util.h it
 * replaces: the plumbing grew to ~1500 lines repeated in five helpers;
 * as static inline functions in a header it would be compiled into every
 * helper and warned about ("defined but not used") wherever a helper uses
 * a part only, and a header cannot hold the shared state (the netlink
 * sequence, the failure count). The split follows mainline's
 * tools/testing/selftests/bpf (netlink_helpers.c, network_helpers.c,
 * testing_helpers.c). The directory keeps the build's glob of helpers
 * (selftests/netkit-*.c, one static binary each) free of the library:
 * scripts/build-selftests.sh compiles the lib/ sources once into libnetkit.a and
 * links it into every helper, statically as before.
 *
 * Conventions: every call returns 0, a result (an fd, a count) or -errno,
 * with errno also set, so "if (x < 0) ... errno" and "err = x" both work.
 * Attach types are plain ints, so that the library builds against the
 * netkit-only cut's uapi (no tcx) as well as the full series'. The
 * includer defines _GNU_SOURCE.
 */
#ifndef NETKIT_LIB_H
#define NETKIT_LIB_H

#include <stddef.h>
#include <net/if.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* ---- testing.c ----------------------------------------------------- */

/* The kernel-internal ENOTSUPP, which bpf(2) hands out; libc has no name. */
#define NK_ENOTSUPP	524

/*
 * "EINVAL" for EINVAL or -EINVAL, "success" for 0, "errno N" for what libc
 * cannot name. Four rotating buffers, so one printf may take several.
 */
const char *nk_errname(int err);

/* CLOCK_MONOTONIC in seconds. */
double nk_now(void);

/*
 * xorshift64*: advances *state (which must not be 0) and returns the
 * scrambled 64-bit output; each tool reduces it as it always did, so that
 * a logged seed replays the same run.
 */
__u64 nk_rand(__u64 *state);

/*
 * One line to stdout with a single write(2), after flushing stdio, so that
 * the lines of forked processes and threads do not mix and stay in order
 * with printf. A newline is added.
 */
void nk_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "ok - ..." or "not ok - ..." as nk_say(); each counts in nk_checks, a
 * "not ok" in nk_failures. Returns good.
 */
extern int nk_failures, nk_checks;
int nk_report(int good, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The check of a call that should give exp (0 or -errno) and the extack
 * message exp_msg (NULL: none), and gave got (NK_NL_NOANSWER: no answer)
 * and got_msg (NULL or "": none); extra, if not NULL, is what else was
 * wrong. As nk_report(): "ok - NAME: EXP[, extack "MSG"]" or
 * "not ok - NAME: expected EXP "MSG"|(no extack), got GOT ...[; EXTRA]".
 */
int nk_expect(const char *name, int exp, const char *exp_msg, int got,
	      const char *got_msg, const char *extra);

/*
 * Failures of a process that may have many: "not ok - <who>: ..." lines
 * as nk_say(), the first max of them, then one "# <who>: more failures,
 * not printed"; every one counted in *count.
 */
struct nk_fails {
	char who[32];
	long *count;
	long printed;
	int max;
};

void nk_fail(struct nk_fails *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A seed for nk_rand() when none is given: the time and the pid. */
__u64 nk_seed(void);
/* Run the calling thread on this CPU only: 0 or -errno. */
int nk_pin_cpu(int cpu);

/*
 * The options of a helper, by a table ending in { 0 }: the flag, its
 * type ('f' a flag that sets an int to 1, 'i' int, 'l' long, 'd' double,
 * 'u' __u64 in any base, 's' the string), where it goes and, if not NULL,
 * its long name (--name). Anything else prints "usage: <argv[0]> <usage>"
 * to stderr and exits 2 (nk_usage()). Returns the index of the first
 * argument left.
 */
struct nk_opt {
	int flag;
	char type;
	void *val;
	const char *name;
};

int nk_options(int argc, char **argv, const struct nk_opt *opts,
	       const char *usage);
void nk_usage(const char *prog, const char *usage) __attribute__((noreturn));

/* ---- netlink.c ----------------------------------------------------- */

#define NK_NL_NOANSWER	1	/* no answer within nk_nl.timeout_ms */
#define NK_MSG_SIZE	8192
#define NK_MSG_MAXATTRS	256

/* A request being built: the header, its family header, attributes. */
struct nk_msg {
	union {
		struct nlmsghdr n;
		char buf[NK_MSG_SIZE];
	};
	int len;		/* bytes so far; nlmsg_len is set on send */
	int sp;			/* open nests */
	int stack[16];
	int nattr;		/* every attribute header, for fuzzers */
	int attr_off[NK_MSG_MAXATTRS];
};

/*
 * Start a request of type with NLM_F_REQUEST | flags and a zeroed family
 * header of hdrlen bytes, which is returned.
 */
void *nk_msg_init(struct nk_msg *m, int type, int flags, int hdrlen);
/* The same with an ifinfomsg (AF_UNSPEC, ifi_index = ifindex). */
struct ifinfomsg *nk_msg_link(struct nk_msg *m, int type, int flags,
			      int ifindex);
/* An attribute; data NULL: len zero bytes. Exits 2 when it does not fit. */
struct nlattr *nk_put(struct nk_msg *m, int type, const void *data, int len);
void nk_put_u8(struct nk_msg *m, int type, __u8 v);
void nk_put_u16(struct nk_msg *m, int type, __u16 v);
void nk_put_u32(struct nk_msg *m, int type, __u32 v);
void nk_put_str(struct nk_msg *m, int type, const char *s);
/* Bytes without an attribute header (data NULL: zeros). */
void nk_put_raw(struct nk_msg *m, const void *data, int len);
/* Open a nested attribute; nk_nest_end() closes the innermost,
 * nk_nest_end_all() every one still open.
 */
void nk_nest(struct nk_msg *m, int type);
void nk_nest_end(struct nk_msg *m);
void nk_nest_end_all(struct nk_msg *m);

/*
 * A netkit RTM_NEWLINK, RTM_SETLINK or RTM_DELLINK: the ifinfomsg,
 * IFLA_IFNAME if name, IFLA_LINKINFO { IFLA_INFO_KIND "netkit",
 * IFLA_INFO_DATA { - left open for the netkit attributes, then
 * nk_nest_end_all().
 */
void nk_netkit_begin(struct nk_msg *m, int type, int flags, int ifindex,
		     const char *name);
/* IFLA_NETKIT_PEER_INFO { an ifinfomsg, IFLA_IFNAME if name - left open. */
void nk_netkit_peer(struct nk_msg *m, int ifindex, const char *name);

/* Which attributes nk_netkit_pair() puts: the fields below that are >= 0. */
struct nk_pair_spec {
	const char *name, *peer;	/* IFLA_IFNAME of each, if not NULL */
	int ifindex, peer_ifindex;	/* 0: the kernel picks */
	int mode, policy, peer_policy;	/* IFLA_NETKIT_*, -1: left out */
	int peer_nsfd;			/* the peer's IFLA_NET_NS_FD, -1: none */
};
#define NK_PAIR_SPEC(n, p)	{ .name = (n), .peer = (p), .mode = -1, \
				  .policy = -1, .peer_policy = -1,	\
				  .peer_nsfd = -1 }
/* A whole RTM_NEWLINK creating a pair (NLM_F_CREATE | NLM_F_EXCL | flags). */
void nk_netkit_pair(struct nk_msg *m, int flags, const struct nk_pair_spec *s);

/* An rtnetlink socket (NETLINK_CAP_ACK, NETLINK_EXT_ACK). */
struct nk_nl {
	int fd;
	__u32 seq;
	int timeout_ms;		/* per answer; <= 0: wait for ever */
	int recv_err;		/* errno of the last failed recv(), else 0 */
	int bad_offs;		/* the last answer's NLMSGERR_ATTR_OFFS, else -1 */
};

/* Open it in the current netns (rcvbuf > 0: SO_RCVBUF). 0 or -errno. */
int nk_nl_open(struct nk_nl *nl, int rcvbuf);
void nk_nl_close(struct nk_nl *nl);
/* Send m with the next sequence number: 0 or -errno. */
int nk_nl_send(struct nk_nl *nl, struct nk_msg *m);
/*
 * Wait for the answer to the last request: the ack's error (0 or -errno)
 * with its extack message in ext (ext may be NULL, "" when none), or, if
 * reply is given, the first answer that is not an error copied there
 * (-EMSGSIZE if larger than replysz); -errno of a failed recv()
 * (nl->recv_err set); NK_NL_NOANSWER on a timeout.
 */
int nk_nl_answer(struct nk_nl *nl, char *ext, size_t extsz, void *reply,
		 size_t replysz);
/*
 * nk_nl_send() and nk_nl_answer(); nl NULL: on a socket of its own in the
 * current netns (nk_nl_once()), here and in every call below that takes
 * an nl.
 */
int nk_nl_talk(struct nk_nl *nl, struct nk_msg *m, char *ext, size_t extsz);
int nk_nl_request(struct nk_nl *nl, struct nk_msg *m, char *ext,
		  size_t extsz, void *reply, size_t replysz);
/* nk_nl_request() on a socket of its own in the current netns. */
int nk_nl_once(struct nk_msg *m, char *ext, size_t extsz, void *reply,
	       size_t replysz);

/*
 * Send a dump request (NLM_F_DUMP added) and call cb on every answer of
 * it up to NLMSG_DONE: 0, the dump's -errno, -errno of send/recv, or
 * NK_NL_NOANSWER.
 */
typedef void (*nk_dump_cb)(const struct nlmsghdr *h, void *arg);
int nk_nl_dump(struct nk_nl *nl, struct nk_msg *m, nk_dump_cb cb, void *arg);

/*
 * The extack message of an NLMSG_ERROR answer of len bytes (the socket
 * has NETLINK_EXT_ACK set), or NULL if it carries none.
 */
const char *nk_extack_msg(const struct nlmsghdr *n, int len);
/* Its NLMSGERR_ATTR_OFFS: where the attribute the kernel refused starts
 * in the request (from its nlmsghdr), or -1 if it names none.
 */
int nk_extack_offs(const struct nlmsghdr *n, int len);

/* A device as RTM_NEWLINK describes it. */
struct nk_link {
	int ifindex;
	int link;			/* IFLA_LINK, -1 if none */
	unsigned int flags;		/* ifi_flags */
	int operstate;
	char name[IFNAMSIZ];
	char kind[16];			/* IFLA_INFO_KIND, "" if none */
	int netkit;			/* kind is "netkit" */
	int mtu, group;			/* IFLA_MTU, IFLA_GROUP */
	int primary, policy, peer_policy, mode;	/* IFLA_NETKIT_*, -1 if none */
	int scrub, peer_scrub;			/* ditto */
	int headroom, tailroom;			/* ditto */
	int carrier;			/* IFLA_CARRIER, -1 if none */
	int master;			/* IFLA_MASTER, 0 if none */
	int has_stats;
	struct rtnl_link_stats64 st;
};

void nk_link_parse(const struct nlmsghdr *h, struct nk_link *l);
/* RTM_GETLINK by ifindex (by name if ifindex is 0): 0 or -errno. */
int nk_link_get(struct nk_nl *nl, int ifindex, const char *name,
		struct nk_link *l);
/*
 * The device census: the devices of the socket's namespace (only the
 * netkit ones if netkit_only), up to max of them in ls (ls may be NULL):
 * how many there are, or -errno / NK_NL_NOANSWER.
 */
int nk_links_dump(struct nk_nl *nl, struct nk_link *ls, int max,
		  int netkit_only);
/*
 * The number of devices as nk_links_dump() counts them, their names
 * listed in names (" a b c", as many as fit), or -errno.
 */
int nk_links_names(struct nk_nl *nl, int netkit_only, char *names,
		   size_t size);
/*
 * The netkit devices of nl's netns whose ifindex is not in keep[nkeep]:
 * with del, each is deleted (a pair goes with one RTM_DELLINK) and the
 * deletions are counted, else they are counted. -errno of a failed dump
 * (-ETIMEDOUT: no answer), -EBUSY if they do not go away.
 */
int nk_netkit_others(struct nk_nl *nl, const int *keep, int nkeep, int del);
/* RTM_NEWLINK of a veth pair: 0 or -errno, the extack in ext. */
int nk_veth_pair(struct nk_nl *nl, const char *name, const char *peer,
		 char *ext, size_t extsz);
/* Create the pair of s (nk_netkit_pair()): 0 or -errno, the extack in ext. */
int nk_netkit_add(struct nk_nl *nl, const struct nk_pair_spec *s, char *ext,
		  size_t extsz);
/* RTM_NEWLINK moving ifindex to the netns of nsfd (IFLA_NET_NS_FD), ditto. */
int nk_link_move(struct nk_nl *nl, int ifindex, int nsfd, char *ext,
		 size_t extsz);
/* RTM_DELLINK of ifindex; RTM_NEWLINK setting IFF_UP: 0 or -errno. */
int nk_link_del(struct nk_nl *nl, int ifindex);
int nk_link_up(struct nk_nl *nl, int ifindex);
/*
 * Wait up to timeout seconds until linkwatch has seen the carrier of an
 * up device (IF_OPER_UP; until then its qdisc is noop, which drops what
 * is sent and reports success): 0, -ETIMEDOUT or -errno.
 */
int nk_link_wait_oper_up(struct nk_nl *nl, int ifindex, double timeout);
/*
 * Both ends of a pair (or any two devices) up, ifindex in nl's netns and
 * peer_ifindex in peer_nl's; with timeout > 0, then wait as
 * nk_link_wait_oper_up() for each: 0 or -errno.
 */
int nk_pair_up(struct nk_nl *nl, int ifindex, struct nk_nl *peer_nl,
	       int peer_ifindex, double timeout);
/*
 * RTM_NEWQDISC (add) or RTM_DELQDISC of ifindex's qdisc of that kind,
 * handle ffff:, at parent (a clsact's and an ingress qdisc's own is
 * TC_H_CLSACT, TC_H_INGRESS): 0 or -errno, as nk_nl_request() (nl may be
 * NULL). nk_clsact(): of kind clsact.
 */
int nk_qdisc(struct nk_nl *nl, int ifindex, __u32 parent, const char *kind, int add,
	     char *ext, size_t extsz);
int nk_clsact(struct nk_nl *nl, int ifindex, __u32 parent, int add, char *ext,
	      size_t extsz);
/*
 * RTM_NEWTFILTER: a direct-action cls_bpf filter running prog_fd (named
 * name) at ifindex's clsact ingress, or egress; the clsact qdisc must be
 * there. 0 or -errno, as nk_nl_request().
 */
int nk_cls_bpf(struct nk_nl *nl, int ifindex, int egress, int prog_fd,
	       const char *name, char *ext, size_t extsz);
/* RTM_NEWADDR of an IPv4 address ("10.0.0.1") with its prefix length. */
int nk_addr_add(struct nk_nl *nl, int ifindex, const char *ipv4,
		int prefixlen);

/*
 * The census of what a test leaves behind: the netkit devices of nl's
 * netns (nl NULL: not counted, 0), the programs whose name starts with
 * prefix and the links of link_type (prefix NULL, link_type < 0: every id
 * that BPF_*_GET_NEXT_ID walks, freed or not). A failed dump: devices
 * is -errno (-ETIMEDOUT: no answer).
 */
struct nk_census {
	int devices, progs, links;
};

void nk_census_take(struct nk_nl *nl, const char *prefix, int link_type,
		    struct nk_census *c);
/*
 * Programs and links are freed after RCU grace periods and from work
 * items: take the census every 50 ms for up to secs seconds until it is
 * want. 1 if it got there, else 0; the last census in now.
 */
int nk_census_settles(struct nk_nl *nl, const char *prefix, int link_type,
		      const struct nk_census *want, struct nk_census *now,
		      double secs);

/* ---- bpf.c --------------------------------------------------------- */

/* bpf(2) with size bytes of attr: the result or -errno (errno set). */
int nk_sys_bpf(int cmd, union bpf_attr *attr, unsigned int size);
/* The same with the whole union. */
int nk_bpf(int cmd, union bpf_attr *attr);
/*
 * A one-entry BPF_F_MMAPABLE array of value_size bytes, mapped shared at
 * *v, where a program's stores are seen as they happen: the map's fd (the
 * mapping outlives it), or -errno with *v MAP_FAILED.
 */
int nk_mmap_array(unsigned int value_size, void **v);

/*
 * Load the program "r0 = verdict; exit" of prog_type for
 * expected_attach_type, named name (GPL): the fd or -errno.
 */
int nk_prog_load(int prog_type, int expected_attach_type, int verdict,
		 const char *name);
/* The same for the n instructions insns. */
int nk_prog_load_insns(int prog_type, int expected_attach_type,
		       const struct bpf_insn *insns, unsigned int n,
		       const char *name);
/*
 * The same for n instructions of which those from cb on are a callback
 * subprogram (bpf_loop()'s): the kernel takes a callback only with BTF
 * func info, so this loads the smallest BTF that names the two functions
 * ("int name(void)" and "int <name>_cb(void)", static; name cut to a
 * program name's 15 characters) with them. The
 * verifier's log of a refused load goes to log (logsz bytes) if given.
 */
int nk_prog_load_cb(int prog_type, int expected_attach_type,
		    const struct bpf_insn *insns, unsigned int n,
		    unsigned int cb, const char *name, char *log,
		    unsigned int logsz);

/*
 * The attr of each command (zeroed first), for callers that send it
 * themselves (fault injection, dirty bytes), and the call.
 */
void nk_attach_attr(union bpf_attr *a, int ifindex, int type, int prog_fd,
		    __u32 flags, __u32 relative, int replace_fd, __u64 revision);
int nk_prog_attach(int ifindex, int type, int prog_fd, __u32 flags,
		   __u32 relative, int replace_fd, __u64 revision);
void nk_detach_attr(union bpf_attr *a, int ifindex, int type, int prog_fd,
		    __u32 flags, __u32 relative, __u64 revision);
int nk_prog_detach(int ifindex, int type, int prog_fd, __u32 flags,
		   __u32 relative, __u64 revision);
void nk_link_create_attr(union bpf_attr *a, int ifindex, int type,
			 int prog_fd, __u32 flags, __u32 relative,
			 __u64 revision);
int nk_link_create(int ifindex, int type, int prog_fd, __u32 flags,
		   __u32 relative, __u64 revision);
/*
 * nk_link_create() with no fd free (RLIMIT_NOFILE lowered to the lowest
 * free fd, then restored): its -errno (EMFILE: the link was made, then
 * refused its fd), or 0 if a link came back after all (closed).
 */
int nk_link_create_nofd(int ifindex, int type, int prog_fd);
void nk_link_update_attr(union bpf_attr *a, int link_fd, int new_prog_fd,
			 __u32 flags, int old_prog_fd);
int nk_link_update(int link_fd, int new_prog_fd, __u32 flags, int old_prog_fd);
int nk_link_detach(int link_fd);
/*
 * BPF_PROG_QUERY into prog_ids/link_ids (either may be NULL) with room
 * for *count (count NULL: 0); *count and *revision (if given) are what
 * the kernel wrote back, also on failure.
 */
void nk_query_attr(union bpf_attr *a, int ifindex, int type, __u32 *prog_ids,
		   __u32 *link_ids, __u32 count);
int nk_prog_query(int ifindex, int type, __u32 *prog_ids, __u32 *link_ids,
		  __u32 *count, __u64 *revision);
/* A BPF_PROG_QUERY's answer, with room for bpf_mprog's 64 and one more. */
#define NK_QUERY_MAX	65
struct nk_query {
	__u32 count;
	__u64 revision;
	__u32 prog_ids[NK_QUERY_MAX], link_ids[NK_QUERY_MAX];
};

/* The attr of a query into q, zeroed first (for callers that send it). */
void nk_query_prep(union bpf_attr *a, int ifindex, int type,
		   struct nk_query *q);
/* BPF_PROG_QUERY into q: 0 or -errno; count and revision as written back. */
int nk_query(int ifindex, int type, struct nk_query *q);
/* How many programs a hook has (their ids in ids, room for max), or -errno. */
int nk_prog_count(int ifindex, int type, __u32 *ids, __u32 max);
/* The revision of a hook, 0 if the query fails. */
__u64 nk_revision(int ifindex, int type);

/*
 * Load "r0 = verdict; exit" (sched_cls, named name) and attach it to the
 * device ifindex at attach_type: with BPF_PROG_ATTACH when pin is NULL,
 * else as a BPF link (BPF_LINK_CREATE) pinned at pin, so that it outlives
 * the caller. NULL on success, else the name of the command that failed,
 * with errno set.
 */
const char *nk_attach(int ifindex, int attach_type, int verdict,
		      const char *name, const char *pin);

/*
 * Open the object pinned at pin (BPF_OBJ_GET) and copy what
 * /proc/self/fdinfo shows for that fd to stdout: for a link, its
 * show_fdinfo lines. 0, or -1 with errno set.
 */
int nk_pinned_fdinfo(const char *pin);

/* BPF_OBJ_GET_INFO_BY_FD into info (zeroed first): 0 or -errno. */
int nk_obj_info(int fd, void *info, __u32 len);
/* The id of a program's or a link's fd, 0 if it is none. */
__u32 nk_prog_id(int fd);
__u32 nk_link_id(int fd);
int nk_link_info(int fd, struct bpf_link_info *info);
/* BPF_PROG_GET_FD_BY_ID or BPF_LINK_GET_FD_BY_ID: the fd or -errno. */
int nk_fd_by_id(int cmd, __u32 id);
/* 1 if no program (or link, by cmd as above) has this id any more. */
int nk_id_gone(int cmd, __u32 id);
/* The ids of all programs or links (BPF_*_GET_NEXT_ID), ascending, up to
 * max: how many.
 */
int nk_all_ids(int cmd, __u32 *ids, int max);
/*
 * The ids of cmd's walk that are not in before[nb]: how many, listed in
 * buf (" 12 34", as many as fit).
 */
int nk_ids_new(int cmd, const __u32 *before, int nb, char *buf, size_t size);
/*
 * Programs and links are freed after RCU grace periods: nk_ids_new()
 * every 50 ms until there is no new id or the time (nk_now()) is past
 * deadline; how many are left, listed in buf.
 */
int nk_ids_settle(int cmd, const __u32 *before, int nb, char *buf, size_t size,
		  double deadline);
/* How many ids BPF_*_GET_NEXT_ID walks (at most 100000). */
int nk_count_ids(int cmd);
/* The census: programs whose name starts with prefix; links of a type. */
int nk_count_progs(const char *prefix);
int nk_count_links(int link_type);

/* ---- system.c ---------------------------------------------------- */

/*
 * A leak check by slab counts: cycle(arg, i) for i = -n / 5 .. n - 1 (the
 * first n / 5 unmeasured: the caches' one-time growth), then the slab
 * cache whose objects in use (/proc/slabinfo's active_objs, each cache
 * shrunk first so that no CPU's slab counts its free objects, through
 * shrink files held open for the whole check) grew most
 * over the n measured cycles, less the threads the kernel added meanwhile
 * (/proc/loadavg: a new kworker takes one object of several caches, pid
 * and task_struct among them): the least of that over 2 to 11 s after
 * the last cycle, each count taken after kfree_rcu()'s batches were
 * handed to RCU (drop_caches; both counts), so that deferred frees come
 * down meanwhile and a leak stays. Its growth (*name its cache), or
 * -errno: of the shrink files (none opened: -ENOENT), drop_caches or
 * /proc/slabinfo, or the first cycle that failed (*failed its i).
 */
long nk_slab_cycles(int n, int (*cycle)(void *arg, int i), void *arg,
		    const char **name, int *failed);

/* Write s to a /proc or /sys file; read an int from one: 0 or -errno. */
int nk_write_str(const char *path, const char *s);
int nk_read_int(const char *path, int *v);
/* unshare(CLONE_NEWNET) for the calling thread: the new netns' fd or -errno. */
int nk_netns_unshare(void);
/*
 * A new network namespace for the calling thread: unshare(CLONE_NEWNET),
 * in_ns(arg) there if given (0 or -errno; an error ends it), then back to
 * home_fd's: the new namespace's fd, or -errno.
 */
int nk_netns_new(int home_fd, int (*in_ns)(void *arg), void *arg);
/*
 * socket(domain, type, protocol) in the netns of nsfd, then back to
 * home_fd's: the socket or -errno.
 */
int nk_socket_in(int nsfd, int home_fd, int domain, int type, int protocol);
/*
 * A user namespace that owns a new netns, uid and gid 0 mapped to 0, made
 * by a forked helper: fds of both, to setns(2) into. 0 or -errno
 * (-EPROTO: the helper's unshare failed).
 */
int nk_userns_new(int *userns_fd, int *netns_fd);
#define NK_CAPB(c)	(1ull << (c))	/* a capability's bit in a mask */
/*
 * Drop the capabilities of the mask drop (NK_CAPB(CAP_...) bits) from the
 * effective, permitted and inheritable sets: 0, -errno, or -EPROTO if
 * afterwards one of drop is still effective or one of keep is not.
 */
int nk_caps_drop(unsigned long long drop, unsigned long long keep);
/*
 * Fault injection (Documentation/fault-injection/): open the calling
 * thread's fail-nth (0, or -errno: no CONFIG_FAULT_INJECTION?); set it to
 * n (0: nothing is done), and after the call:
 * 1 if the fault was injected, what fail-nth read in *left (n minus the
 * fault points passed), fail-nth disarmed. Either exits 1 with a
 * "not ok" line if fail-nth cannot be written or read.
 */
int nk_fail_nth_open(void);
void nk_fail_nth_arm(int n);
int nk_fail_nth_disarm(int n, int *left);
/*
 * /proc/self/make-it-fail on or off (the task-filter of failslab and
 * fail_page_alloc): 0 or -errno.
 */
int nk_make_it_fail(int on);
/*
 * Wait for the child pid until the time (nk_now()) is past deadline, then
 * kill it (SIGKILL): 0 if it ended by itself, -ETIMEDOUT if it was killed,
 * -errno if waitpid() failed; its wait status in *status.
 */
int nk_wait_child(int pid, double deadline, int *status);
/*
 * A UDP socket (non-blocking, SO_RCVBUF rcvbuf) bound to the IPv4 address
 * addr and port in the netns of nsfd, made from home_fd's: its fd or
 * -errno.
 */
int nk_udp_server(int nsfd, int home_fd, const char *addr, int port, int rcvbuf);
/*
 * Run fn(arg, res) in a forked child (stdout flushed first) and read its
 * res of size bytes back through a pipe: 0; 1 if the child died or did
 * not send all of res (*status from waitpid; res zeroed); -errno if
 * pipe/fork failed.
 */
int nk_child(void (*fn)(void *arg, void *res), void *arg, void *res,
	     size_t size, int *status);

/* ---- kmsg.c ------------------------------------------------------ */

/* An allocation site: the first frame that is not the allocator. */
struct nk_site {
	char name[64];
	char via[160];		/* its next callers, "a < b < c" */
	int count;
};

#define NK_MAX_SITES	256
#define NK_KM_FRAMES	64

/* What the reader counted. */
struct nk_km_count {
	int fi_reports, fi_slab, fi_page;	/* fault injection notices */
	int alloc_warn;		/* warn_alloc() and dumps it explains */
	int problems;		/* the reader's calls of problem() */
	int lost;		/* records the ring buffer overwrote */
	int attributed, unattributed;	/* fault injection stacks */
	int interleaved;	/* other CPUs' records amid a dump */
	int incomplete;		/* dumps whose " </TASK>" was not read */
	int nsites;
	struct nk_site sites[NK_MAX_SITES];
};

/*
 * The reader. The caller sets fd (nk_kmsg_open()) or plant, con_level,
 * verbose, cur and the callbacks; the rest is the reader's.
 */
struct nk_kmsg {
	int fd;			/* /dev/kmsg, -1: none */
	/*
	 * Or planted records, for a self-test of the reader: NULL-terminated;
	 * "" stands for a read that finds no record yet, EAGAIN, with more to
	 * come.
	 */
	const char *const *plant;
	int verbose;		/* print every record that is not in a dump */
	int con_level;		/* console_loglevel: below it, on the console */
	int on_console;		/* fault injection report lines below it */
	int fi_seen;		/* notices since the caller zeroed it */
	char last_site[256];	/* "site < caller < ..." of the last one */
	struct nk_km_count *cur;	/* the current part's counts, or NULL */
	struct nk_km_count total;	/* the whole run's */
	/* a stack or record that nothing explains; a note only */
	void (*problem)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
	void (*note)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
	/* the dump being read */
	int mode, nframes, nlines, unattributed_shown, wait_timeouts;
	char frames[NK_KM_FRAMES][64];
	char lines[NK_KM_FRAMES][128];
};

/* Open /dev/kmsg at its end into k->fd: 0 or -errno. */
int nk_kmsg_open(struct nk_kmsg *k);
/* Read what the kernel logged since the last call. */
void nk_kmsg_drain(struct nk_kmsg *k);
/* Forget the dump being read and what the last drains saw. */
void nk_kmsg_reset(struct nk_kmsg *k);
/*
 * One stack without a caller of the allocator is reported and passes; a
 * part (k->cur) none of whose stacks could be attributed is a problem:
 * the stacks are not read right (a format this reader does not know).
 */
void nk_kmsg_attribution_check(struct nk_kmsg *k);
/*
 * The reader's self-test on planted records (kmsg-selftest.c): the
 * "ok"/"not ok" line of each case; 1 if all passed. err_class() is the
 * caller's errno verdict on a failed call and the site of its fault (< 0:
 * passes, < nexplained: explained, else fails); *caseno is set to each
 * case's number (from 1) before its records are read.
 */
int nk_kmsg_selftest(struct nk_kmsg *k,
		     int (*err_class)(int err, const char *site),
		     int nexplained, int *caseno);
void nk_site_add(struct nk_km_count *s, const char *name, const char *via);
/* The sites, most counted first, a "#<indent>" line each. */
void nk_sites_print(struct nk_km_count *s, const char *indent);

#endif /* NETKIT_LIB_H */
