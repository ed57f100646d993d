// SPDX-License-Identifier: GPL-2.0
/*
 * tcx-filterrace: races a tc filter add against the deletion of its
 * device, so that the clsact qdisc outlives dev_shutdown() and
 * tcx_uninstall() finds the device's tcx entry still in use by it
 * (miniq_active): the branch that clears the entry's programs instead
 * of freeing it (kernel/bpf/tcx.c, bpf_mprog_clear_all()).
 *
 *   tcx-filterrace SECONDS
 *
 * tc_new_tfilter() runs without rtnl up to the lookup of the qdisc, which
 * takes a reference on it (__tcf_qdisc_find(..., rtnl_held = false)); a
 * cls_bpf filter then waits for rtnl. An add whose lookup comes while
 * RTM_DELLINK holds rtnl but has not yet unlisted the device (it is
 * closing it, which waits for an RCU grace period) keeps the qdisc
 * alive through dev_shutdown() and tcx_uninstall(); the add goes on on
 * the detached qdisc once it has rtnl, and the qdisc is destroyed when
 * the add drops its reference.
 *
 * Each round: a dummy device tfrN, up, with a clsact qdisc and a tcx
 * program at ingress (BPF_PROG_ATTACH); then one thread (CPU 1) adds
 * cls_bpf filters to clsact's ingress, one after another, until an add
 * fails, while the other (CPU 0) deletes the device after a random delay
 * of up to 2 ms. Every answer must be success, or ENODEV or EINVAL (the
 * device or its qdisc already gone); the device must be gone afterwards.
 * At the end no program of the test may be left. It prints the rounds,
 * the adds and their answers; whether an add met the deletion in the
 * kernel is for the caller to read from the trace (tcx_filterrace.sh:
 * the clsact qdisc of tfrN destroyed after tcx_uninstall() of tfrN).
 *
 * "ok - ..." / "not ok - ..." lines; exit 1 if a check failed, 2 on bad
 * usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/netkit-lib.h"

#define PREFIX	"tfr_"

static int cls_prog;
static volatile int go, adder_done;
static int ifindex;
static long adds, answers[4];	/* success, ENODEV, EINVAL, other */
static int other_err;
/* the adder gives up past this (nk_now()): a delete that never came */
static double adder_deadline;

static int dummy_add(struct nk_nl *nl, const char *name)
{
	struct nk_msg m;

	nk_msg_link(&m, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0);
	nk_put_str(&m, IFLA_IFNAME, name);
	nk_nest(&m, IFLA_LINKINFO);
	nk_put(&m, IFLA_INFO_KIND, "dummy", 5);
	nk_nest_end_all(&m);
	return nk_nl_talk(nl, &m, NULL, 0);
}

static void *adder(void *arg)
{
	struct nk_nl nl;
	int err;

	(void)arg;
	nk_pin_cpu(1);
	if (nk_nl_open(&nl, 0)) {
		other_err = -errno;
		answers[3]++;
		adder_done = 1;
		return NULL;
	}
	while (!go)
		;
	do {
		err = nk_cls_bpf(&nl, ifindex, 0, cls_prog, PREFIX "cls", NULL, 0);
		adds++;
		if (!err)
			answers[0]++;
		else if (err == -ENODEV)
			answers[1]++;
		else if (err == -EINVAL)
			answers[2]++;
		else {
			answers[3]++;
			other_err = err;
		}
	} while (!err && nk_now() < adder_deadline);
	nk_nl_close(&nl);
	adder_done = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = 0, gone_bad = 0, del_bad = 0;
	struct nk_nl nl;
	double end, settle;
	int tcx_prog, err, left;
	__u64 rng;
	char name[IFNAMSIZ];
	pthread_t t;

	if (argc != 2)
		nk_usage(argv[0], "SECONDS");
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = nk_seed();
	if (nk_nl_open(&nl, 0)) {
		nk_say("not ok - rtnetlink socket: %s", strerror(errno));
		return 1;
	}
	cls_prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, 0, 0 /* TC_ACT_OK */,
				PREFIX "cls");
	tcx_prog = nk_prog_load(BPF_PROG_TYPE_SCHED_CLS, BPF_TCX_INGRESS,
				-1 /* TCX_NEXT */, PREFIX "tcx");
	if (cls_prog < 0 || tcx_prog < 0) {
		nk_say("not ok - load the programs: %s",
		       nk_errname(cls_prog < 0 ? cls_prog : tcx_prog));
		return 1;
	}
	nk_pin_cpu(0);
	end = nk_now() + atof(argv[1]);
	adder_deadline = end + 30;
	while (nk_now() < end) {
		snprintf(name, sizeof(name), "tfr%d", (int)(rounds % 1000000));
		err = dummy_add(&nl, name);
		ifindex = err ? 0 : (int)if_nametoindex(name);
		if (!err && !ifindex)
			err = -ENODEV;
		if (!err)
			err = nk_link_up(&nl, ifindex);
		if (!err)
			err = nk_clsact(&nl, ifindex, TC_H_CLSACT, 1, NULL, 0);
		if (!err)
			err = nk_prog_attach(ifindex, BPF_TCX_INGRESS, tcx_prog, 0, 0, 0, 0);
		if (err) {
			nk_say("not ok - round %ld: set up %s: %s", rounds, name,
			       nk_errname(err));
			break;
		}
		go = adder_done = 0;
		if (pthread_create(&t, NULL, adder, NULL)) {
			nk_say("not ok - the adder thread");
			break;
		}
		go = 1;
		/* up to 2 ms: the adds before, during and after the delete */
		usleep(nk_rand(&rng) % 2000);
		err = nk_link_del(&nl, ifindex);
		if (err) {
			del_bad++;
			nk_say("# round %ld: RTM_DELLINK %s: %s", rounds, name,
			       nk_errname(err));
		}
		pthread_join(t, NULL);
		if (if_nametoindex(name)) {
			gone_bad++;
			nk_link_del(&nl, if_nametoindex(name));
		}
		rounds++;
	}
	close(cls_prog);
	close(tcx_prog);
	nk_say("# %ld rounds (tfr0 to tfr%ld), %ld filter adds: %ld succeeded, "
	       "%ld ENODEV, %ld EINVAL, %ld other (last %s)", rounds, rounds - 1,
	       adds, answers[0], answers[1], answers[2], answers[3],
	       nk_errname(other_err));
	nk_report(rounds > 0, "rounds run: %ld", rounds);
	nk_report(!answers[3], "every filter add answered success, ENODEV or EINVAL (%ld other)",
		  answers[3]);
	nk_report(!del_bad && !gone_bad, "every device deleted and gone (%ld deletes failed, %ld left)",
		  del_bad, gone_bad);
	settle = nk_now() + 10;
	while ((left = nk_count_progs(PREFIX)) > 0 && nk_now() < settle)
		usleep(50000);
	nk_report(!left, "no program of the test left (%d)", left);
	nk_nl_close(&nl);
	return nk_failures ? 1 : 0;
}
