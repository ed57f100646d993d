// SPDX-License-Identifier: GPL-2.0
/*
 * netkit-lib: what a test needs besides the kernel - errno names, the
 * clock, the seeded RNG and the "ok"/"not ok" lines. See netkit-lib.h.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netkit-lib.h"

int nk_failures;

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
	if (!good)
		nk_failures++;
	return good;
}
