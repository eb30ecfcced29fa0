# shellcheck shell=bash
# slurm_conf.sh - sourced by tests/slurm/cluster.sh and tests/install/slurm_node.sh: the
# slurm.conf settings every throwaway cluster of ours shares. Root runs every daemon, munge
# authenticates (each cluster's own munged socket, AuthInfo, is the caller's), no cgroups
# (proctrack/linuxproc, task/none: the nodes are namespaces of one machine), no accounting,
# node counts from slurm.conf not the hardware (config_overrides), and a killed step's node is
# usable again within seconds (ReturnToService, KillWait, MinJobAge).
#   slurm_conf_common   prints those lines
slurm_conf_common() {
  cat <<'CONF'
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=2
MinJobAge=2
CONF
}
