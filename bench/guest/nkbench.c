// SPDX-License-Identifier: GPL-2.0
/*
 * nkbench: the bench guest's loader and scale probe.
 *
 *   nkbench tc-attach OBJ DEV TARGET [NEXTHOP]
 *   nkbench tc-detach DEV
 *   nkbench netkit-pair PRIMARY PEER [HEADROOM]
 *   nkbench netkit-attach OBJ PRIMARY TARGET PINPATH [NEXTHOP]
 *   nkbench tcx-attach OBJ DEV TARGET PINPATH [NEXTHOP]
 *   nkbench scale veth|netkit N OBJ
 *   nkbench udp SRC_NS DST_NS ADDR PORT SIZE SECONDS WINDOW
 *   nkbench now
 *   nkbench has netkit|tcx|headroom
 *
 * tc-attach loads the tc program of OBJ with target_ifindex = TARGET's
 * ifindex and attaches it at the clsact ingress hook of DEV (direct
 * action), creating the clsact qdisc. netkit-attach loads the netkit/peer
 * program of OBJ the same way and attaches it through a netkit bpf link on
 * the peer hook of the pair whose primary is PRIMARY (BPF_LINK_CREATE,
 * attach_type BPF_NETKIT_PEER, target the primary's ifindex), pinned at
 * PINPATH so that it outlives this process. tcx-attach attaches the
 * program of OBJ through a tcx link at the ingress of DEV
 * (BPF_TCX_INGRESS), pinned the same way. Both set the program's expected
 * attach type before loading, so one tc program serves every hook.
 * tc-detach deletes DEV's clsact qdisc and its filters (the NIC outlives
 * the topology that attached them). With NEXTHOP (an IPv4 address) the program's read-only data is 8 bytes,
 * the target's ifindex and the next hop in network byte order
 * (redirect_neigh_nh.bpf.c's cfg); without it, 4 bytes, the ifindex.
 * netkit-pair creates a netkit pair in L3 mode with pass as the default
 * policy of both ends, PEER behind PRIMARY, as "ip link add PRIMARY type
 * netkit mode l3 peer name PEER" of iproute2 >= 6.8 would; with HEADROOM
 * (bytes) also IFLA_NETKIT_HEADROOM, the needed_headroom of both ends, as
 * "... headroom HEADROOM" of iproute2 >= 6.14 would, and reads it back
 * from both ends (RTM_GETLINK), failing unless both report HEADROOM.
 *
 * scale runs, in a netns of its own, one round of the scale curve: create
 * N pairs of the kind (both ends up, no addresses), load the program once
 * and attach it to every pair (veth: clsact qdisc + tc filter on the first
 * end; netkit: a bpf link on the peer hook of the primary), then delete the
 * pairs (and, for netkit, release the links). It times each phase with
 * CLOCK_MONOTONIC, reads /proc/meminfo around creating and around
 * attaching, and prints one line
 *
 *   NKBENCH scale kind=K n=N create_ms= load_ms= attach_ms= delete_ms=
 *           dev_slab_kb= dev_percpu_kb= ... att_slab_kb= ...
 *
 * with the meminfo deltas (kB, whole run, not per pair): dev_* of creating
 * the pairs, att_* of attaching (the program itself, loaded once, is in
 * neither), left_* what is still allocated after deleting. The same
 * rtnetlink code creates both kinds, so only the kind differs.
 *
 * udp measures one flow of SIZE-byte UDP datagrams from netns SRC_NS to
 * ADDR:PORT in netns DST_NS (a name under /run/netns, "-" for the
 * namespace nkbench runs in), sender and receiver pinned to CPU 0: it
 * forks the receiver (bound to ADDR:PORT, blocking recv()), and the sender
 * sends for SECONDS, never more than WINDOW datagrams ahead of what the
 * receiver has read (a counter in shared memory; the sender sched_yield()s
 * to the receiver while the window is full), so that no datagram is
 * dropped and every one sent is a packet of the path. It then waits until
 * the receiver has read all of them and prints
 *
 *   NKBENCH udp packets=N bytes=B elapsed_ns=T pps=P ns_per_packet=X
 *               yields=Y
 *
 * with T from CLOCK_MONOTONIC around the run (under QEMU's -icount, guest
 * time: 2^shift ns per executed guest instruction). Fails when a datagram
 * goes missing (the receiver falls 1 s of guest time behind) or a
 * datagram arrives with the wrong size.
 *
 * now prints CLOCK_MONOTONIC in ns (the shell's clocks have 10 ms).
 *
 * Built by bench/host/build.sh for each kernel the bench runs on,
 * against that kernel's uapi headers and its tree's libbpf, with
 * NKBENCH_NETKIT where the kernel has netkit, NKBENCH_TCX where it has
 * tcx links (the unpatched 6.1 base has neither) and NKBENCH_HEADROOM where
 * netkit takes IFLA_NETKIT_HEADROOM (the series; mainline from 6.14, not
 * 6.12). "has" answers whether this build has the one or the other (exit
 * status 0 or 1); the commands that need what the build lacks fail saying
 * so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nkbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- rtnetlink ---------------------------------------------------------- */

struct req {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char buf[512];
};

static int nl_fd = -1;
static unsigned int nl_seq;

static struct rtattr *add_attr(struct req *r, int type, const void *data,
			       int len)
{
	struct rtattr *rta = (void *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	if (NLMSG_ALIGN(r->n.nlmsg_len) + RTA_SPACE(len) > sizeof(*r))
		die("netlink request too long");
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void end_nest(struct req *r, struct rtattr *nest)
{
	nest->rta_len = (char *)r + r->n.nlmsg_len - (char *)nest;
}

static void nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(nl_fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0)
		die("netlink socket: %s", strerror(errno));
}

/* Send one request and wait for its ack; returns 0 or -errno. */
static int nl_talk(struct nlmsghdr *n)
{
	struct {
		struct nlmsghdr n;
		struct nlmsgerr e;
		char buf[256];
	} ack;
	int len;

	n->nlmsg_seq = ++nl_seq;
	n->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(nl_fd, n, n->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = recv(nl_fd, &ack, sizeof(ack), 0);
		if (len < 0)
			return -errno;
		if (len < (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
		    ack.n.nlmsg_type != NLMSG_ERROR)
			return -EPROTO;
		if (ack.n.nlmsg_seq == nl_seq)
			return ack.e.error;
	}
}

static void req_init(struct req *r, int type, int flags, int ifindex)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = flags;
	r->i.ifi_family = AF_UNSPEC;
	r->i.ifi_index = ifindex;
}

/* A veth or netkit (L3, pass/pass) pair: NAME in front, PEER behind;
 * a netkit pair with HEADROOM > 0 gets that needed_headroom. */
static int create_pair(int netkit, const char *name, const char *peer_name,
		       int headroom)
{
	struct ifinfomsg peer_ifm = { .ifi_family = AF_UNSPEC };
	struct rtattr *linkinfo, *data, *peer;
	struct req r;

	req_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = add_attr(&r, IFLA_LINKINFO, NULL, 0);
	add_attr(&r, IFLA_INFO_KIND, netkit ? "netkit" : "veth",
		 netkit ? 6 : 4);
	data = add_attr(&r, IFLA_INFO_DATA, NULL, 0);
	if (netkit) {
#ifdef NKBENCH_NETKIT
		__u32 mode = NETKIT_L3, pass = NETKIT_PASS;

		add_attr(&r, IFLA_NETKIT_MODE, &mode, sizeof(mode));
		add_attr(&r, IFLA_NETKIT_POLICY, &pass, sizeof(pass));
		add_attr(&r, IFLA_NETKIT_PEER_POLICY, &pass, sizeof(pass));
		if (headroom > 0) {
#ifdef NKBENCH_HEADROOM
			__u16 room = headroom;

			add_attr(&r, IFLA_NETKIT_HEADROOM, &room, sizeof(room));
#else
			die("built for a kernel without IFLA_NETKIT_HEADROOM");
#endif
		}
		peer = add_attr(&r, IFLA_NETKIT_PEER_INFO, &peer_ifm,
				sizeof(peer_ifm));
#else
		die("built for a kernel without netkit");
#endif
	} else {
		(void)headroom;
		peer = add_attr(&r, VETH_INFO_PEER, &peer_ifm, sizeof(peer_ifm));
	}
	add_attr(&r, IFLA_IFNAME, peer_name, strlen(peer_name) + 1);
	end_nest(&r, peer);
	end_nest(&r, data);
	end_nest(&r, linkinfo);
	return nl_talk(&r.n);
}

#ifdef NKBENCH_HEADROOM
/* The headroom the kernel reports for netkit device NAME (RTM_GETLINK:
 * IFLA_LINKINFO / IFLA_INFO_DATA / IFLA_NETKIT_HEADROOM, the device's
 * needed_headroom); -1 when the answer has none. */
static int netkit_headroom(const char *name)
{
	struct {
		struct nlmsghdr n;
		char buf[16384];
	} ans;
	struct rtattr *rta, *info, *data;
	int len, rlen, ilen, dlen;
	struct req r;

	req_init(&r, RTM_GETLINK, 0, 0);
	add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	r.n.nlmsg_seq = ++nl_seq;
	r.n.nlmsg_flags |= NLM_F_REQUEST;
	if (send(nl_fd, &r.n, r.n.nlmsg_len, 0) < 0)
		die("RTM_GETLINK %s: %s", name, strerror(errno));
	len = recv(nl_fd, &ans, sizeof(ans), 0);
	if (len < 0)
		die("RTM_GETLINK %s: %s", name, strerror(errno));
	if (len < (int)NLMSG_LENGTH(sizeof(struct ifinfomsg)) ||
	    ans.n.nlmsg_type != RTM_NEWLINK || ans.n.nlmsg_seq != nl_seq)
		die("RTM_GETLINK %s: no link in the answer (type %d)", name,
		    ans.n.nlmsg_type);
	rta = IFLA_RTA((struct ifinfomsg *)NLMSG_DATA(&ans.n));
	rlen = IFLA_PAYLOAD(&ans.n);
	for (; RTA_OK(rta, rlen); rta = RTA_NEXT(rta, rlen)) {
		if (rta->rta_type != IFLA_LINKINFO)
			continue;
		info = RTA_DATA(rta);
		ilen = RTA_PAYLOAD(rta);
		for (; RTA_OK(info, ilen); info = RTA_NEXT(info, ilen)) {
			if (info->rta_type != IFLA_INFO_DATA)
				continue;
			data = RTA_DATA(info);
			dlen = RTA_PAYLOAD(info);
			for (; RTA_OK(data, dlen); data = RTA_NEXT(data, dlen))
				if (data->rta_type == IFLA_NETKIT_HEADROOM &&
				    RTA_PAYLOAD(data) >= sizeof(__u16))
					return *(__u16 *)RTA_DATA(data);
		}
	}
	return -1;
}
#endif

static int link_up(int ifindex)
{
	struct req r;

	req_init(&r, RTM_NEWLINK, 0, ifindex);
	r.i.ifi_flags = IFF_UP;
	r.i.ifi_change = IFF_UP;
	return nl_talk(&r.n);
}

static int link_del(int ifindex)
{
	struct req r;

	req_init(&r, RTM_DELLINK, 0, ifindex);
	return nl_talk(&r.n);
}

/* ---- BPF ---------------------------------------------------------------- */

static char *obj_buf;
static size_t obj_size;

static void read_obj(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	obj_size = st.st_size;
	obj_buf = malloc(obj_size);
	if (!obj_buf || read(fd, obj_buf, obj_size) != (ssize_t)obj_size)
		die("%s: short read", path);
	close(fd);
}

/* Open the object read by read_obj(), set its read-only data (the
 * target's ifindex, and the next hop where one is given), load it. */
static struct bpf_object *load_obj(__u32 target, const char *nexthop,
				   struct bpf_program **prog,
				   enum bpf_attach_type type)
{
	struct bpf_object *obj;
	struct bpf_map *map;
	__u32 cfg[2] = { target, 0 };
	size_t sz = 0, want = nexthop ? sizeof(cfg) : sizeof(target);
	int err;

	if (nexthop && inet_pton(AF_INET, nexthop, &cfg[1]) != 1)
		die("%s: not an IPv4 address", nexthop);
	obj = bpf_object__open_mem(obj_buf, obj_size, NULL);
	if (!obj)
		die("bpf_object__open_mem: %s", strerror(errno));
	map = bpf_object__find_map_by_name(obj, ".rodata");
	if (!map || !bpf_map__initial_value(map, &sz) || sz != want ||
	    bpf_map__set_initial_value(map, cfg, want))
		die("object has no %zu-byte .rodata (%s)", want,
		    nexthop ? "target ifindex, next hop" : "target_ifindex");
	*prog = bpf_object__next_program(obj, NULL);
	if (!*prog)
		die("object has no program");
	if (type && bpf_program__set_expected_attach_type(*prog, type))
		die("cannot set the expected attach type");
	err = bpf_object__load(obj);
	if (err)
		die("bpf_object__load: %s", strerror(-err));
	return obj;
}

static int tc_attach(struct bpf_program *prog, int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = bpf_program__fd(prog));
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return err;
	return bpf_tc_attach(&hook, &opts);
}

/* What this build has, for "nkbench has". */
#ifdef NKBENCH_NETKIT
#define FEATURE_NETKIT " netkit"
#else
#define FEATURE_NETKIT ""
#endif
#ifdef NKBENCH_TCX
#define FEATURE_TCX " tcx"
#else
#define FEATURE_TCX ""
#endif
#ifdef NKBENCH_HEADROOM
#define FEATURE_HEADROOM " headroom"
#else
#define FEATURE_HEADROOM ""
#endif
#define FEATURES FEATURE_NETKIT FEATURE_TCX FEATURE_HEADROOM " "

/* The attach type and the bpf link of a netkit peer hook or a tcx ingress
 * hook, where this build has them. */
static enum bpf_attach_type link_type(int netkit)
{
#ifdef NKBENCH_NETKIT
	if (netkit)
		return BPF_NETKIT_PEER;
#endif
#ifdef NKBENCH_TCX
	if (!netkit)
		return BPF_TCX_INGRESS;
#endif
	die("built for a kernel without %s", netkit ? "netkit" : "tcx links");
	return 0;
}

static struct bpf_link *attach_link(struct bpf_program *prog __attribute__((unused)),
				    int netkit, int ifindex __attribute__((unused)))
{
#ifdef NKBENCH_NETKIT
	if (netkit)
		return bpf_program__attach_netkit(prog, ifindex, NULL);
#endif
#ifdef NKBENCH_TCX
	if (!netkit)
		return bpf_program__attach_tcx(prog, ifindex, NULL);
#endif
	die("built for a kernel without %s", netkit ? "netkit" : "tcx links");
	return NULL;
}

static int ifindex_of(const char *name)
{
	int ifindex = if_nametoindex(name);

	if (!ifindex)
		die("%s: %s", name, strerror(errno));
	return ifindex;
}

/* ---- /proc/meminfo ------------------------------------------------------- */

struct mem {
	long slab, percpu, vmalloc, memfree;
};

static void read_mem(struct mem *m)
{
	char line[256];
	FILE *f;

	/* Let RCU-deferred frees and link watch work of the phase before
	 * settle, the same way for both kinds. */
	sleep(1);
	memset(m, 0, sizeof(*m));
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Slab: %ld", &m->slab);
		sscanf(line, "Percpu: %ld", &m->percpu);
		sscanf(line, "VmallocUsed: %ld", &m->vmalloc);
		sscanf(line, "MemFree: %ld", &m->memfree);
	}
	fclose(f);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("%s: %s", path, strerror(errno));
	close(fd);
}

/* ---- commands ------------------------------------------------------------ */

/* Enter the netns NAME under /run/netns ("-": stay). */
static void enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!strcmp(name, "-"))
		return;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die("netns %s: %s", name, strerror(errno));
	close(fd);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity: %s", strerror(errno));
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct udp_shared {
	volatile long long rcvd;	/* datagrams the receiver read */
	volatile int ready;		/* the receiver is bound */
	volatile int bad;		/* datagrams of the wrong size */
};

static int cmd_udp(const char *src_ns, const char *dst_ns, const char *addr,
		   int port, int size, double seconds, int window)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct udp_shared *sh;
	long long sent = 0, yields = 0, t0, t1, end, wait0;
	char buf[65536];
	pid_t child;
	int fd, st;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		die("udp: bad address %s", addr);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	memset(buf, 'x', sizeof(buf));
	pin_cpu0();
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		enter_netns(dst_ns);
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die("udp receiver on %s:%d: %s", addr, port, strerror(errno));
		sh->ready = 1;
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);

			if (n < 0)
				die("udp recv: %s", strerror(errno));
			if (n != size)
				sh->bad++;
			sh->rcvd++;
		}
	}
	enter_netns(src_ns);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("udp sender to %s:%d: %s", addr, port, strerror(errno));
	while (!sh->ready) {
		if (waitpid(child, &st, WNOHANG) == child)
			die("udp receiver exited");
		sched_yield();
	}
	/* One datagram first, so that neighbour and route lookups are done. */
	if (send(fd, buf, size, 0) != size)
		die("udp send: %s", strerror(errno));
	sent = 1;
	wait0 = now_ns();
	while (sh->rcvd < sent) {
		if (now_ns() - wait0 > 1000000000LL)
			die("udp: the first datagram did not arrive");
		sched_yield();
	}
	sent = 0;
	sh->rcvd = 0;
	t0 = now_ns();
	end = t0 + (long long)(seconds * 1e9);
	while (now_ns() < end) {
		wait0 = 0;
		while (sent - sh->rcvd >= window) {
			if (!wait0)
				wait0 = now_ns();
			else if (now_ns() - wait0 > 1000000000LL)
				die("udp: %lld sent, %lld received: datagrams lost",
				    sent, (long long)sh->rcvd);
			sched_yield();
			yields++;
		}
		if (send(fd, buf, size, 0) != size)
			die("udp send: %s", strerror(errno));
		sent++;
	}
	wait0 = now_ns();
	while (sh->rcvd < sent) {
		if (now_ns() - wait0 > 1000000000LL)
			die("udp: %lld sent, %lld received: datagrams lost",
			    sent, (long long)sh->rcvd);
		sched_yield();
		yields++;
	}
	t1 = now_ns();
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	if (sh->bad)
		die("udp: %d datagrams of the wrong size", sh->bad);
	printf("NKBENCH udp packets=%lld bytes=%lld elapsed_ns=%lld pps=%.1f ns_per_packet=%.2f yields=%lld\n",
	       sent, sent * size, t1 - t0, sent * 1e9 / (t1 - t0),
	       (double)(t1 - t0) / sent, yields);
	return 0;
}

static int cmd_scale(int netkit, int n)
{
	struct bpf_link **links = calloc(n, sizeof(*links));
	struct bpf_program *prog;
	struct bpf_object *obj;
	int *prim = calloc(n, sizeof(*prim)), *second = calloc(n, sizeof(*second));
	struct rlimit rl = { 65536, 65536 };
	double t0, t_create, t_load, t_attach, t_delete;
	struct mem m0, m1, ml, m2, m3;
	char a[IFNAMSIZ], b[IFNAMSIZ];
	int i, err;

	if (!links || !prim || !second)
		die("out of memory");
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE): %s", strerror(errno));
	if (unshare(CLONE_NEWNET))
		die("unshare(CLONE_NEWNET): %s", strerror(errno));
	write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	nl_open();
	read_mem(&m0);

	t0 = now_ms();
	for (i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "s%da", i);
		snprintf(b, sizeof(b), "s%db", i);
		err = create_pair(netkit, a, b, 0);
		if (err)
			die("create pair %d (%s/%s): %s", i, a, b, strerror(-err));
		prim[i] = ifindex_of(a);
		second[i] = ifindex_of(b);
		err = link_up(prim[i]);
		if (!err)
			err = link_up(second[i]);
		if (err)
			die("set %s/%s up: %s", a, b, strerror(-err));
	}
	t_create = now_ms() - t0;
	read_mem(&m1);

	/* One program for all pairs: what differs between the kinds is the
	 * attachment, not the verifier's work. It never runs here (no
	 * traffic); its target is the last pair's second device. */
	t0 = now_ms();
	obj = load_obj(second[n - 1], NULL, &prog, netkit ? link_type(1) : 0);
	t_load = now_ms() - t0;
	read_mem(&ml);

	t0 = now_ms();
	for (i = 0; i < n; i++) {
		if (netkit) {
			links[i] = attach_link(prog, 1, prim[i]);
			err = links[i] ? 0 : -errno;
		} else {
			err = tc_attach(prog, prim[i]);
		}
		if (err)
			die("attach pair %d: %s", i, strerror(-err));
	}
	t_attach = now_ms() - t0;
	/* The tc filters and the links hold the program now. */
	bpf_object__close(obj);
	read_mem(&m2);

	t0 = now_ms();
	for (i = 0; i < n; i++) {
		err = link_del(prim[i]);
		if (err)
			die("delete pair %d: %s", i, strerror(-err));
		if (links[i])
			bpf_link__destroy(links[i]);
	}
	t_delete = now_ms() - t0;
	read_mem(&m3);

	printf("NKBENCH scale kind=%s n=%d create_ms=%.1f load_ms=%.1f attach_ms=%.1f delete_ms=%.1f"
	       " dev_slab_kb=%ld dev_percpu_kb=%ld dev_vmalloc_kb=%ld dev_memfree_kb=%ld"
	       " att_slab_kb=%ld att_percpu_kb=%ld att_vmalloc_kb=%ld att_memfree_kb=%ld"
	       " left_slab_kb=%ld left_percpu_kb=%ld\n",
	       netkit ? "netkit" : "veth", n, t_create, t_load, t_attach, t_delete,
	       m1.slab - m0.slab, m1.percpu - m0.percpu, m1.vmalloc - m0.vmalloc,
	       m0.memfree - m1.memfree,
	       m2.slab - ml.slab, m2.percpu - ml.percpu, m2.vmalloc - ml.vmalloc,
	       ml.memfree - m2.memfree,
	       m3.slab - m0.slab, m3.percpu - m0.percpu);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s tc-attach OBJ DEV TARGET [NEXTHOP]\n"
		"       %s tc-detach DEV\n"
		"       %s netkit-pair PRIMARY PEER [HEADROOM]\n"
		"       %s netkit-attach OBJ PRIMARY TARGET PINPATH [NEXTHOP]\n"
		"       %s tcx-attach OBJ DEV TARGET PINPATH [NEXTHOP]\n"
		"       %s scale veth|netkit N OBJ\n"
		"       %s udp SRC_NS DST_NS ADDR PORT SIZE SECONDS WINDOW\n"
		"       %s now\n"
		"       %s has netkit|tcx|headroom\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	libbpf_set_print(libbpf_print);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "tc-attach")) {
		read_obj(argv[2]);
		load_obj(ifindex_of(argv[4]), argc == 6 ? argv[5] : NULL, &prog, 0);
		err = tc_attach(prog, ifindex_of(argv[3]));
		if (err)
			die("tc attach on %s: %s", argv[3], strerror(-err));
		return 0;
	}
	if ((argc == 6 || argc == 7) && (!strcmp(argv[1], "netkit-attach") ||
					  !strcmp(argv[1], "tcx-attach"))) {
		int netkit = !strcmp(argv[1], "netkit-attach");

		read_obj(argv[2]);
		load_obj(ifindex_of(argv[4]), argc == 7 ? argv[6] : NULL, &prog,
			 link_type(netkit));
		link = attach_link(prog, netkit, ifindex_of(argv[3]));
		if (!link)
			die("%s link on %s: %s", netkit ? "netkit" : "tcx", argv[3],
			    strerror(errno));
		err = bpf_link__pin(link, argv[5]);
		if (err)
			die("pin %s: %s", argv[5], strerror(-err));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "scale") &&
	    (!strcmp(argv[2], "veth") || !strcmp(argv[2], "netkit"))) {
		int n = atoi(argv[3]);

		if (n <= 0 || n > 100000)
			usage(argv[0]);
		read_obj(argv[4]);
		return cmd_scale(!strcmp(argv[2], "netkit"), n);
	}
	if (argc == 3 && !strcmp(argv[1], "tc-detach")) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex_of(argv[2]),
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

		err = bpf_tc_hook_destroy(&hook);
		if (err && err != -ENOENT && err != -EINVAL)
			die("tc detach on %s: %s", argv[2], strerror(-err));
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "netkit-pair")) {
		int headroom = argc == 5 ? atoi(argv[4]) : 0;

		if (argc == 5 && (headroom <= 0 || headroom > 65535))
			usage(argv[0]);
		nl_open();
		err = create_pair(1, argv[2], argv[3], headroom);
		if (err)
			die("netkit pair %s/%s: %s", argv[2], argv[3], strerror(-err));
#ifdef NKBENCH_HEADROOM
		/* what the kernel made of it, on both ends */
		if (headroom > 0) {
			int h0 = netkit_headroom(argv[2]);
			int h1 = netkit_headroom(argv[3]);

			if (h0 != headroom || h1 != headroom)
				die("netkit pair %s/%s: asked for headroom %d, the kernel reports %d and %d",
				    argv[2], argv[3], headroom, h0, h1);
			printf("netkit pair %s/%s: headroom %d on both ends (RTM_GETLINK)\n",
			       argv[2], argv[3], h0);
		}
#endif
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "has") &&
	    (!strcmp(argv[2], "netkit") || !strcmp(argv[2], "tcx") ||
	     !strcmp(argv[2], "headroom"))) {
		char word[16];

		snprintf(word, sizeof(word), " %s ", argv[2]);
		return strstr(FEATURES, word) ? 0 : 1;
	}
	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", now_ns());
		return 0;
	}
	if (argc == 9 && !strcmp(argv[1], "udp")) {
		int port = atoi(argv[5]), size = atoi(argv[6]), window = atoi(argv[8]);
		double seconds = atof(argv[7]);

		if (port <= 0 || port > 65535 || size < 1 || size > 65507 ||
		    seconds <= 0 || window < 1)
			usage(argv[0]);
		return cmd_udp(argv[2], argv[3], argv[4], port, size, seconds, window);
	}
	usage(argv[0]);
	return 2;
}
