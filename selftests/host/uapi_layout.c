// SPDX-License-Identifier: GPL-2.0
/*
 * Print the uapi values and layouts that netkit, tcx and bpf_mprog user
 * space depends on, one per line. scripts/series/check-uapi.sh builds this against the
 * patched 6.1 tree's uapi headers and against mainline's (Debian's
 * linux-source-6.12) and diffs the output: any difference means a binary
 * built against mainline headers would talk to the 6.1 kernel wrongly.
 *
 * Constants that exist only in newer mainline than the reference tree are
 * compiled in with -DHAVE_<NAME> by the script, only when both header sets
 * define them.
 */
#include <stddef.h>
#include <stdio.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

#define VAL(x)	printf("%s = %lld\n", #x, (long long)(x))
#define OFF(t, f) \
	printf("offsetof(%s, %s) = %zu, size %zu\n", #t, #f, \
	       offsetof(t, f), sizeof(((t *)0)->f))

int main(void)
{
	/* attach and link types */
	VAL(BPF_NETKIT_PRIMARY);
	VAL(BPF_NETKIT_PEER);
	VAL(BPF_LINK_TYPE_NETKIT);
	VAL(BPF_TCX_INGRESS);
	VAL(BPF_TCX_EGRESS);
	VAL(BPF_LINK_TYPE_TCX);

	/* tcx program return codes */
	VAL(TCX_NEXT);
	VAL(TCX_PASS);
	VAL(TCX_DROP);
	VAL(TCX_REDIRECT);

	/* bpf_mprog attach flags */
	VAL(BPF_F_REPLACE);
	VAL(BPF_F_BEFORE);
	VAL(BPF_F_AFTER);
	VAL(BPF_F_ID);
	VAL(BPF_F_LINK);
	VAL(BPF_F_QUERY_EFFECTIVE);

	/* BPF_PROG_ATTACH / BPF_PROG_DETACH */
	OFF(union bpf_attr, target_fd);
	OFF(union bpf_attr, target_ifindex);
	OFF(union bpf_attr, attach_bpf_fd);
	OFF(union bpf_attr, attach_type);
	OFF(union bpf_attr, attach_flags);
	OFF(union bpf_attr, replace_bpf_fd);
	OFF(union bpf_attr, relative_fd);
	OFF(union bpf_attr, relative_id);
	OFF(union bpf_attr, expected_revision);

	/* BPF_PROG_QUERY */
	OFF(union bpf_attr, query.target_fd);
	OFF(union bpf_attr, query.target_ifindex);
	OFF(union bpf_attr, query.attach_type);
	OFF(union bpf_attr, query.query_flags);
	OFF(union bpf_attr, query.attach_flags);
	OFF(union bpf_attr, query.prog_ids);
	OFF(union bpf_attr, query.prog_cnt);
	OFF(union bpf_attr, query.count);
	OFF(union bpf_attr, query.prog_attach_flags);
	OFF(union bpf_attr, query.link_ids);
	OFF(union bpf_attr, query.link_attach_flags);
	OFF(union bpf_attr, query.revision);

	/* BPF_LINK_CREATE */
	OFF(union bpf_attr, link_create.prog_fd);
	OFF(union bpf_attr, link_create.target_ifindex);
	OFF(union bpf_attr, link_create.attach_type);
	OFF(union bpf_attr, link_create.flags);
	OFF(union bpf_attr, link_create.tcx);
	OFF(union bpf_attr, link_create.tcx.relative_fd);
	OFF(union bpf_attr, link_create.tcx.relative_id);
	OFF(union bpf_attr, link_create.tcx.expected_revision);
	OFF(union bpf_attr, link_create.netkit);
	OFF(union bpf_attr, link_create.netkit.relative_fd);
	OFF(union bpf_attr, link_create.netkit.relative_id);
	OFF(union bpf_attr, link_create.netkit.expected_revision);

	/* BPF_LINK_UPDATE and BPF_LINK_DETACH, used on netkit and tcx links */
	OFF(union bpf_attr, link_update.link_fd);
	OFF(union bpf_attr, link_update.new_prog_fd);
	OFF(union bpf_attr, link_update.flags);
	OFF(union bpf_attr, link_update.old_prog_fd);
	OFF(union bpf_attr, link_detach.link_fd);

	/* BPF_OBJ_GET_INFO_BY_FD on a netkit or tcx link */
	OFF(struct bpf_link_info, type);
	OFF(struct bpf_link_info, id);
	OFF(struct bpf_link_info, prog_id);
	OFF(struct bpf_link_info, tcx);
	OFF(struct bpf_link_info, tcx.ifindex);
	OFF(struct bpf_link_info, tcx.attach_type);
	OFF(struct bpf_link_info, netkit);
	OFF(struct bpf_link_info, netkit.ifindex);
	OFF(struct bpf_link_info, netkit.attach_type);

	/* rtnetlink: IFLA_INFO_DATA of kind "netkit" */
	VAL(NETKIT_NEXT);
	VAL(NETKIT_PASS);
	VAL(NETKIT_DROP);
	VAL(NETKIT_REDIRECT);
	VAL(NETKIT_L2);
	VAL(NETKIT_L3);
	VAL(IFLA_NETKIT_UNSPEC);
	VAL(IFLA_NETKIT_PEER_INFO);
	VAL(IFLA_NETKIT_PRIMARY);
	VAL(IFLA_NETKIT_POLICY);
	VAL(IFLA_NETKIT_PEER_POLICY);
	VAL(IFLA_NETKIT_MODE);
#ifdef HAVE_IFLA_NETKIT_SCRUB
	VAL(IFLA_NETKIT_SCRUB);
	VAL(IFLA_NETKIT_PEER_SCRUB);
	VAL(NETKIT_SCRUB_NONE);
	VAL(NETKIT_SCRUB_DEFAULT);
#endif
#ifdef HAVE_IFLA_NETKIT_HEADROOM
	VAL(IFLA_NETKIT_HEADROOM);
	VAL(IFLA_NETKIT_TAILROOM);
#endif
	return 0;
}
