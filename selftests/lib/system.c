// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: the system around a test - network and user namespaces,
 * capabilities, /proc and /sys files, a forked child with a result, slab
 * counts around repeated operations (a leak check). See netkit-lib.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "netkit-lib.h"

int nk_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), len = strlen(s), err;

	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != len) {
		err = errno ? errno : EIO;
		close(fd);
		errno = err;
		return -err;
	}
	return close(fd) ? -errno : 0;
}

int nk_read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	if (!ok)
		errno = EINVAL;
	return ok ? 0 : -EINVAL;
}

int nk_netns_unshare(void)
{
	int fd;

	if (unshare(CLONE_NEWNET) < 0)
		return -errno;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int nk_netns_new(int home_fd, int (*in_ns)(void *arg), void *arg)
{
	int fd = nk_netns_unshare(), err;

	if (fd < 0)
		return fd;
	err = in_ns ? in_ns(arg) : 0;
	if (!err && setns(home_fd, CLONE_NEWNET) < 0)
		err = -errno;
	if (err) {
		close(fd);
		errno = -err;
		return err;
	}
	return fd;
}

int nk_socket_in(int nsfd, int home_fd, int domain, int type, int protocol)
{
	int fd, err = 0;

	if (setns(nsfd, CLONE_NEWNET) < 0)
		return -errno;
	fd = socket(domain, type, protocol);
	if (fd < 0)
		err = -errno;
	if (setns(home_fd, CLONE_NEWNET) < 0 && !err) {
		err = -errno;
		close(fd);
	}
	errno = -err;
	return err ? err : fd;
}

int nk_wait_child(int pid, double deadline, int *status)
{
	int ret;

	while ((ret = waitpid(pid, status, WNOHANG)) == 0 && nk_now() < deadline)
		usleep(20000);
	if (ret > 0)
		return 0;
	if (ret < 0)
		return -errno;
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -ETIMEDOUT;
}

int nk_udp_server(int nsfd, int home_fd, const char *addr, int port, int rcvbuf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = nk_socket_in(nsfd, home_fd, AF_INET,
			      SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return fd;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		errno = EINVAL;
	else if (!setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) &&
		 !bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		return fd;
	close(fd);
	return -errno;
}

int nk_userns_new(int *userns_fd, int *netns_fd)
{
	int up[2], down[2], fd, i, err = 0;
	char path[64], c;
	pid_t pid;

	if (pipe(up) || pipe(down))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(up[0]);
		close(down[1]);
		c = unshare(CLONE_NEWUSER | CLONE_NEWNET) ? 'E' : 'U';
		if (write(up[1], &c, 1) != 1)
			_exit(1);
		/* Wait until the parent holds the namespaces. */
		if (read(down[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) != 1 || c != 'U')
		err = -EPROTO;
	for (i = 0; !err && i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, i ? "gid_map" : "uid_map");
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "0 0 1\n", 6) != 6)
			err = -errno;
		if (fd >= 0)
			close(fd);
	}
	if (!err) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		*userns_fd = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
		*netns_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*userns_fd < 0 || *netns_fd < 0)
			err = -errno;
	}
	close(down[1]);
	close(up[0]);
	if (waitpid(pid, NULL, 0) != pid && !err)
		err = -errno;
	if (err)
		errno = -err;
	return err;
}

int nk_caps_drop(unsigned long long drop, unsigned long long keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	unsigned long long eff;
	int i;

	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (i = 0; i < 2; i++) {
		__u32 m = drop >> (32 * i);

		d[i].effective &= ~m;
		d[i].permitted &= ~m;
		d[i].inheritable &= ~m;
	}
	if (syscall(SYS_capset, &h, d))
		return -errno;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
	eff = d[0].effective | (unsigned long long)d[1].effective << 32;
	if ((eff & drop) || (keep & ~eff)) {
		errno = EPROTO;
		return -EPROTO;
	}
	return 0;
}

static int fail_nth_fd = -1;

int nk_fail_nth_open(void)
{
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fail_nth_fd < 0 || pwrite(fail_nth_fd, "0", 1, 0) != 1)
		return -errno;
	return 0;
}

void nk_fail_nth_arm(int n)
{
	char buf[16];
	int len;

	if (!n)
		return;
	len = snprintf(buf, sizeof(buf), "%d", n);
	if (pwrite(fail_nth_fd, buf, len, 0) != len) {
		printf("not ok - write %d to fail-nth: %s\n", n, strerror(errno));
		exit(1);
	}
}

int nk_fail_nth_disarm(int n, int *left)
{
	char buf[16] = "";

	*left = 0;
	if (!n)
		return 0;
	if (pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) <= 0 ||
	    pwrite(fail_nth_fd, "0", 1, 0) != 1) {
		printf("not ok - read/reset fail-nth: %s\n", strerror(errno));
		exit(1);
	}
	*left = atoi(buf);
	return *left == 0;
}

int nk_make_it_fail(int on)
{
	static int fd = -1;
	int i;

	if (fd < 0)
		fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < 100; i++)	/* (the write itself can be failed) */
		if (pwrite(fd, on ? "1" : "0", 1, 0) == 1)
			return 0;
	return -errno;
}

int nk_child(void (*fn)(void *arg, void *res), void *arg, void *res,
	     size_t size, int *status)
{
	int pfd[2];
	ssize_t n;
	pid_t pid;

	*status = 0;
	if (pipe(pfd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(pfd[0]);
		fn(arg, res);
		if (write(pfd[1], res, size) != (ssize_t)size)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	n = read(pfd[0], res, size);
	close(pfd[0]);
	if (waitpid(pid, status, 0) != pid || n != (ssize_t)size ||
	    !WIFEXITED(*status) || WEXITSTATUS(*status)) {
		memset(res, 0, size);
		return 1;
	}
	return 0;
}

/* ---- slab counts ------------------------------------------------------ */

#define NK_MAX_CACHES 512
struct nk_slabs {
	int n;
	char name[NK_MAX_CACHES][64];
	long active[NK_MAX_CACHES];
};

/*
 * The shrink file of every cache (/sys/kernel/slab/CACHE/shrink), held
 * open while a check counts. SLUB counts the free objects of the slabs
 * a CPU holds as in use; writing a shrink file hands those slabs back,
 * so that a cache's count moves with its objects, not by whole slabs.
 * Opened once: each open of a sysfs file takes a kernfs open node
 * (kmalloc-96) that the last close frees by kfree_rcu(), and
 * drop_caches (below) would drop the files' dentries and inodes for the
 * next open to make again, so that opening them for every count moved
 * the counts it took by up to 250 objects.
 */
static int shrink_fds[NK_MAX_CACHES], n_shrink_fds;

static int shrink_files_open(void)
{
	char path[300];
	struct dirent *d;
	DIR *dir;
	int fd;

	n_shrink_fds = 0;
	dir = opendir("/sys/kernel/slab");
	while (dir && (d = readdir(dir)) && n_shrink_fds < NK_MAX_CACHES) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", d->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			shrink_fds[n_shrink_fds++] = fd;
	}
	if (dir)
		closedir(dir);
	return n_shrink_fds ? 0 : -ENOENT;
}

static void shrink_files_close(void)
{
	while (n_shrink_fds)
		close(shrink_fds[--n_shrink_fds]);
}

/* Every cache's objects in use, each cache shrunk first (above). */
static int slabinfo(struct nk_slabs *sl)
{
	char line[512];
	FILE *f;
	int i;

	for (i = 0; i < n_shrink_fds; i++)
		if (pwrite(shrink_fds[i], "1", 1, 0) < 0)
			return -errno;
	f = fopen("/proc/slabinfo", "r");
	sl->n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && sl->n < NK_MAX_CACHES)
		if (line[0] != '#' && strncmp(line, "slabinfo", 8) &&
		    sscanf(line, "%63s %ld", sl->name[sl->n], &sl->active[sl->n]) == 2)
			sl->n++;
	fclose(f);
	return sl->n ? 0 : -ENODATA;
}

/*
 * Deferred frees handed on. 6.1's kfree_rcu() keeps the objects it is
 * given in a per-CPU batch for 5 s (KFREE_DRAIN_JIFFIES) before it asks
 * RCU for a grace period, and 5 s more each time while an earlier batch
 * still waits for its own: objects the cycles freed (a tcx entry, for
 * one) can count as in use more than 11 s later. Writing 2 to
 * drop_caches runs the shrinkers, kfree_rcu()'s among them, which hands
 * every batch to RCU at once (freed a grace period later, within the
 * sleep that follows). It also frees unused dentries and inodes; an
 * object a leak left behind is still referenced, and stays.
 */
static int drain_deferred_frees(void)
{
	return nk_write_str("/proc/sys/vm/drop_caches", "2");
}

/* The cache whose objects in use grew most from a to b, and by how many. */
static long max_growth(const struct nk_slabs *a, const struct nk_slabs *b, const char **name)
{
	long best = 0;
	int i, j;

	*name = "-";
	for (i = 0; i < b->n; i++)
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i])) {
				if (b->active[i] - a->active[j] > best) {
					best = b->active[i] - a->active[j];
					*name = b->name[i];
				}
				break;
			}
	return best;
}

/* The kernel's threads and processes: /proc/loadavg's "running/total" */
static long nr_threads(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	long running, total = -1;

	if (f) {
		if (fscanf(f, "%*s %*s %*s %ld/%ld", &running, &total) != 2)
			total = -1;
		fclose(f);
	}
	return total;
}

static long slab_cycles(int n, int (*cycle)(void *arg, int i), void *arg,
			const char **name, int *failed)
{
	static struct nk_slabs before, after;
	long grew = -1, threads = 0;
	int i, err;

	*name = "-";
	for (i = -n / 5; i < n; i++) {
		if (!i) {
			err = drain_deferred_frees();
			if (err)
				return err;
			sleep(2);
			err = slabinfo(&before);
			if (err)
				return err;
			threads = nr_threads();
		}
		err = cycle(arg, i);
		if (err) {
			*failed = i;
			return err;
		}
	}
	for (i = 0; i < 10 && grew; i++) {
		const char *nm;
		long g, t;

		err = drain_deferred_frees();
		if (err)
			return err;
		sleep(i ? 1 : 2);
		err = slabinfo(&after);
		if (err)
			return err;
		/* a new kernel thread (a kworker the workqueues added while
		 * work waited for rtnl) takes an object of several caches:
		 * one each is not the cycles'
		 */
		t = threads >= 0 ? nr_threads() - threads : 0;
		g = max_growth(&before, &after, &nm) - (t > 0 ? t : 0);
		if (g < 0)
			g = 0;
		if (grew < 0 || g < grew) {
			grew = g;
			*name = nm;
		}
	}
	return grew;
}

long nk_slab_cycles(int n, int (*cycle)(void *arg, int i), void *arg,
		    const char **name, int *failed)
{
	long grew;

	*name = "-";
	grew = shrink_files_open();
	if (!grew)
		grew = slab_cycles(n, cycle, arg, name, failed);
	shrink_files_close();
	return grew;
}
