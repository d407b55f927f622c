# Sourced by Tests/Engines/run.sh (bash): a one-node Slurm cluster on 127.0.0.1 of its own, which never
# meets a cluster already running on the machine: a private munged (its own key and socket), and
# slurmctld and slurmd with a private SLURM_CONF, free ports, and their state, spool, pid and log
# files under one directory. slurm_start DIR starts the three daemons and waits for the node to be
# idle; slurm_stop cancels what is left of the jobs and stops them (by their pid files), and is safe to
# call twice or after a failed start. Both export SLURM_CONF for sbatch, squeue, scancel.

SLURM_DIR=""

# The pid in FILE, when it names a running process.
slurm_pid() { local pid; pid=$(cat "$1" 2>/dev/null) || return 1; [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"; }

# Sends TERM to the daemon of pid file FILE, then KILL if it is still there after 10 s.
slurm_stop_daemon() {
  local pid
  pid=$(slurm_pid "$1") || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

slurm_start() {
  SLURM_DIR=$1
  local d=$SLURM_DIR node=imgfetch-node ports
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
  chmod 711 "$d/munge"   # munged: the socket's directory reachable, not listable
  head -c 1024 /dev/urandom > "$d/munge/munge.key" && chmod 400 "$d/munge/munge.key"
  munged --force --socket="$d/munge/socket" --key-file="$d/munge/munge.key" --pid-file="$d/munge/munged.pid" \
    --log-file="$d/log/munged.log" --seed-file="$d/munge/munged.seed" \
    || { echo "engines-test: munged did not start: $(tail -3 "$d/log/munged.log" 2>/dev/null)" >&2; return 1; }
  ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  read -r ctld_port node_port <<< "$ports"
  # OverSubscribe=FORCE:4: the four tasks of an array run at once on two CPUs (they wait on the network).
  cat > "$d/slurm.conf" <<EOF
ClusterName=imgfetch-engines
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=$(nproc) State=UNKNOWN
PartitionName=engines Nodes=$node Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4
EOF
  export SLURM_CONF="$d/slurm.conf"
  slurmctld -c || { echo "engines-test: slurmctld did not start: $(tail -3 "$d/log/slurmctld.log")" >&2; return 1; }
  slurmd -N "$node" || { echo "engines-test: slurmd did not start: $(tail -3 "$d/log/slurmd.log")" >&2; return 1; }
  for _ in $(seq 150); do
    [[ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" == idle ]] && return 0
    sleep 0.2
  done
  echo "engines-test: the Slurm node is not idle after 30 s: $(sinfo -h -n "$node" -o %T 2>&1)" >&2
  tail -5 "$d/log/slurmctld.log" "$d/log/slurmd.log" >&2
  return 1
}

slurm_stop() {
  [[ -n "$SLURM_DIR" ]] || return 0
  local d=$SLURM_DIR
  if slurm_pid "$d/slurmctld.pid" >/dev/null; then
    scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 50); do [[ -z "$(squeue -h 2>/dev/null)" ]] && break; sleep 0.2; done
  fi
  slurm_stop_daemon "$d/slurmd.pid"
  slurm_stop_daemon "$d/slurmctld.pid"
  slurm_stop_daemon "$d/munge/munged.pid"
  SLURM_DIR=""
}
