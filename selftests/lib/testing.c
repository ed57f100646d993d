// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: what a test needs besides the kernel - errno names, the
 * clock, the seeded RNG and the "ok"/"not ok" lines. See netkit-lib.h.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>
#include <unistd.h>

#include "netkit-lib.h"

int nk_failures, nk_checks;

const char *nk_errname(int err)
{
	static __thread char buf[4][24];
	static __thread int i;
	const char *s;

	if (err < 0)
		err = -err;
	if (!err)
		return "success";
	if (err == NK_ENOTSUPP)
		return "ENOTSUPP";
	s = strerrorname_np(err);
	if (s)
		return s;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "errno %d", err);
	return buf[i];
}

double nk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__u64 nk_rand(__u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[4096];
	int len, plen = strlen(prefix);

	memcpy(buf, prefix, plen);
	len = vsnprintf(buf + plen, sizeof(buf) - plen - 1, fmt, ap);
	if (len < 0)
		return;
	len += plen;
	if (len > (int)sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	fflush(stdout);
	if (write(1, buf, len) < 0)
		exit(3);
}

void nk_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

int nk_report(int good, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(good ? "ok - " : "not ok - ", fmt, ap);
	va_end(ap);
	nk_checks++;
	if (!good)
		nk_failures++;
	return good;
}

int nk_expect(const char *name, int exp, const char *exp_msg, int got,
	      const char *got_msg, const char *extra)
{
	int ok = got == exp && !extra;
	char e[600], g[600];

	if (got_msg && !*got_msg)
		got_msg = NULL;
	if (exp_msg ? !got_msg || strcmp(exp_msg, got_msg) : !!got_msg)
		ok = 0;
	if (ok)
		return nk_report(1, "%s: %s%s%s%s", name, nk_errname(exp),
				 exp_msg ? ", extack \"" : "",
				 exp_msg ? exp_msg : "", exp_msg ? "\"" : "");
	snprintf(e, sizeof(e), exp_msg ? " \"%s\"" : " (no extack)", exp_msg);
	snprintf(g, sizeof(g), got_msg ? " \"%s\"" : " (no extack)", got_msg);
	return nk_report(0, "%s: expected %s%s, got %s%s%s%s", name,
			 nk_errname(exp), e,
			 got == NK_NL_NOANSWER ? "no answer" : nk_errname(got), g,
			 extra ? "; " : "", extra ? extra : "");
}

void nk_fail(struct nk_fails *f, const char *fmt, ...)
{
	char buf[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	(*f->count)++;
	if (++f->printed <= f->max)
		nk_say("not ok - %s: %s", f->who, buf);
	else if (f->printed == f->max + 1)
		nk_say("# %s: more failures, not printed", f->who);
}

__u64 nk_seed(void)
{
	return (__u64)time(NULL) ^ ((__u64)getpid() << 16);
}

int nk_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

void nk_usage(const char *prog, const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", prog, usage);
	exit(2);
}

int nk_options(int argc, char **argv, const struct nk_opt *opts,
	       const char *usage)
{
	struct option lopts[32] = {};
	const struct nk_opt *o;
	int len = 0, n = 0, opt;
	char spec[64];

	for (o = opts; o->flag && len < (int)sizeof(spec) - 3 && n < 31; o++) {
		spec[len++] = o->flag;
		if (o->type != 'f')
			spec[len++] = ':';
		if (o->name)
			lopts[n++] = (struct option){ o->name, o->type != 'f', NULL, o->flag };
	}
	spec[len] = 0;
	while ((opt = getopt_long(argc, argv, spec, lopts, NULL)) != -1) {
		for (o = opts; o->flag && o->flag != opt; o++)
			;
		switch (o->flag ? o->type : '?') {
		case 'f':
			*(int *)o->val = 1;
			break;
		case 'i':
			*(int *)o->val = atoi(optarg);
			break;
		case 'l':
			*(long *)o->val = atol(optarg);
			break;
		case 'd':
			*(double *)o->val = atof(optarg);
			break;
		case 'u':
			*(__u64 *)o->val = strtoull(optarg, NULL, 0);
			break;
		case 's':
			*(const char **)o->val = optarg;
			break;
		default:
			nk_usage(argv[0], usage);
		}
	}
	return optind;
}
