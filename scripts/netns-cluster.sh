#!/usr/bin/env bash
# A cluster in a box: N "hosts" on this machine, each a network namespace with
# its own address on a private /24, joined by a bridge that lives in a namespace
# of its own (nothing is attached to a real interface, no route of this machine
# changes), each running its own sshd on its address (root login with a key made
# for this cluster). Optional shaping: `--rate 1gbit` puts a tbf qdisc on both
# directions of every host's link. Needs root, iproute2 (ip, tc) and sshd.
#
#   scripts/netns-cluster.sh up N [--rate R] [--prefix P] [--subnet A.B.C] [--second-address]
#   scripts/netns-cluster.sh down    [--prefix P]
#   scripts/netns-cluster.sh status  [--prefix P]
#   scripts/netns-cluster.sh addr H  [--prefix P]   give host H a second address (A.B.C.101+H)
#   scripts/netns-cluster.sh cut H | restore H      pull / plug host H's cable (restore also
#                                                   continues frozen processes, restarts sshd)
#   scripts/netns-cluster.sh freeze H | thaw H      SIGSTOP / SIGCONT every process of host H
#   scripts/netns-cluster.sh crash H                SIGKILL every process of host H (sshd too)
#
# Names: namespaces P-h0 .. P-h<N-1> and P-br (the switch); state (keys, sshd
# configs, the list of addresses) in /tmp/distgnn-netns-P/. Host i has address
# A.B.C.(i+1) (default subnet 10.77.0; --subnet or DISTGNN_NETNS_SUBNET changes it);
# its second address is A.B.C.(101+i). Default prefix: dgn (or DISTGNN_NETNS_PREFIX).
# The script touches only namespaces named with its prefix; `down` removes every
# one of them, their processes and the state folder, and a failed or interrupted
# `up` does the same before it exits.
set -uo pipefail

die() { echo "netns-cluster: $*" >&2; exit 1; }

CMD="${1:-}"
[ -n "$CMD" ] || die "usage: $0 up N [--rate R] [--prefix P] [--subnet A.B.C] [--second-address] | down | status | addr H | cut H | restore H | freeze H | thaw H | crash H"
shift
PREFIX="${DISTGNN_NETNS_PREFIX:-dgn}"
SUBNET="${DISTGNN_NETNS_SUBNET:-10.77.0}"
RATE=""
SECOND=0
ARG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="${2:-}"; shift 2 ;;
    --rate) RATE="${2:-}"; shift 2 ;;
    --subnet) SUBNET="${2:-}"; shift 2 ;;
    --second-address) SECOND=1; shift ;;
    -*) die "unknown option $1" ;;
    *) [ -z "$ARG" ] || die "unexpected argument $1"; ARG="$1"; shift ;;
  esac
done
[[ "$PREFIX" =~ ^[a-z][a-z0-9]{0,11}$ ]] || die "prefix '$PREFIX' must be 1-12 lower-case letters/digits, starting with a letter"
[[ "$SUBNET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "subnet '$SUBNET' must be the first three octets of a /24, e.g. 10.77.0"
STATE="/tmp/distgnn-netns-$PREFIX"
BR="$PREFIX-br"
SSHD=/usr/sbin/sshd

[ "$(id -u)" = 0 ] || die "cannot run: needs root (network namespaces, veth, tc)"
command -v ip >/dev/null 2>&1 || die "cannot run: no 'ip' command (install iproute2)"

host_ns() { echo "$PREFIX-h$1"; }
host_addr() { echo "$SUBNET.$(($1 + 1))"; }
second_addr() { echo "$SUBNET.$(($1 + 101))"; }

# Our namespaces: exactly P-br and P-h<digits>.
our_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}-(br|h[0-9]+)$" || true
}

check_host() {
  local n
  [ -f "$STATE/hosts" ] || die "no cluster with prefix $PREFIX (no $STATE/hosts); run: $0 up N --prefix $PREFIX"
  n=$(wc -l < "$STATE/hosts")
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -lt "$n" ] || die "host '$1' is not one of 0..$((n - 1))"
  ip netns list | awk '{print $1}' | grep -qx "$(host_ns "$1")" || die "namespace $(host_ns "$1") does not exist"
}

signal_host() {  # SIG H: every process in host H's namespace (twice: catches forks in between)
  local ns pids
  ns=$(host_ns "$2")
  for _ in 1 2; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill "-$1" $pids 2>/dev/null
  done
  return 0
}

do_down() {
  local ns pids
  for ns in $(our_namespaces); do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    if [ -n "$pids" ]; then
      kill -CONT $pids 2>/dev/null
      kill -KILL $pids 2>/dev/null
    fi
  done
  sleep 0.1
  for ns in $(our_namespaces); do ip netns del "$ns" 2>/dev/null || echo "netns-cluster: could not delete namespace $ns" >&2; done
  rm -rf "$STATE"
}

start_sshd() {  # H
  local ns
  ns=$(host_ns "$1")
  ip netns exec "$ns" "$SSHD" -f "$STATE/h$1/sshd_config" -E "$STATE/h$1/sshd.log" || return 1
}

sshd_running() {  # H: its pid is a live process of the host (a killed one may linger as a zombie)
  local pid
  pid=$(cat "$STATE/h$1/sshd.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && ip netns pids "$(host_ns "$1")" 2>/dev/null | grep -qx "$pid"
}

# tc rate (e.g. 1gbit, 500mbit) -> bytes per 4 ms, at least 128 KB: the tbf burst.
burst_bytes() {
  local r="$1" n unit bits
  n="${r%%[a-zA-Z]*}"
  unit="${r#"$n"}"
  case "$unit" in
    gbit) bits=$((n * 1000000000)) ;;
    mbit) bits=$((n * 1000000)) ;;
    kbit) bits=$((n * 1000)) ;;
    bit | "") bits=$n ;;
    *) die "rate '$r': use a whole number with bit, kbit, mbit or gbit (e.g. 1gbit)" ;;
  esac
  local b=$((bits / 8 / 250))
  [ "$b" -lt 131072 ] && b=131072
  echo "$b"
}

do_up() {
  local n="$ARG" i ns a burst=""
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 99 ] || die "up N: N must be a number of hosts from 1 to 99"
  [ -x "$SSHD" ] || die "cannot run: no $SSHD (install openssh-server)"
  command -v ssh-keygen >/dev/null 2>&1 || die "cannot run: no ssh-keygen (install openssh-client)"
  if [ -n "$RATE" ]; then
    command -v tc >/dev/null 2>&1 || die "cannot run: --rate needs 'tc' (install iproute2)"
    burst=$(burst_bytes "$RATE")
  fi
  [ -z "$(our_namespaces)" ] || die "namespaces with prefix $PREFIX exist already ($(our_namespaces | tr '\n' ' ')); run: $0 down --prefix $PREFIX"
  [ ! -e "$STATE" ] || rm -rf "$STATE"

  # From here on a failure or an interrupt removes everything made so far.
  trap 'echo "netns-cluster: up failed or was interrupted; removing what it made" >&2; do_down; exit 1' ERR INT TERM
  set -E
  mkdir -p "$STATE" /run/sshd
  chmod 700 "$STATE"
  ssh-keygen -q -t ed25519 -N '' -f "$STATE/id_ed25519" -C "distgnn-netns-$PREFIX"
  cp "$STATE/id_ed25519.pub" "$STATE/authorized_keys"
  cat > "$STATE/ssh_config" <<EOF
Host *
  User root
  IdentityFile $STATE/id_ed25519
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
EOF
  : > "$STATE/hosts"

  ip netns add "$BR"
  ip -n "$BR" link set lo up
  ip -n "$BR" link add br0 type bridge
  ip -n "$BR" link set br0 up
  for ((i = 0; i < n; i++)); do
    ns=$(host_ns "$i")
    a=$(host_addr "$i")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # The pair is made inside the switch's namespace; its other end goes straight to the host.
    ip -n "$BR" link add "vh$i" type veth peer name eth0 netns "$ns"
    ip -n "$BR" link set "vh$i" master br0 up
    ip -n "$ns" addr add "$a/24" dev eth0
    ip -n "$ns" link set eth0 up
    if [ "$SECOND" = 1 ]; then ip -n "$ns" addr add "$(second_addr "$i")/24" dev eth0; fi
    if [ -n "$RATE" ]; then
      ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$RATE" burst "$burst" latency 50ms
      ip netns exec "$BR" tc qdisc add dev "vh$i" root tbf rate "$RATE" burst "$burst" latency 50ms
    fi
    mkdir -p "$STATE/h$i"
    ssh-keygen -q -t ed25519 -N '' -f "$STATE/h$i/host_key" -C "host$i"
    cat > "$STATE/h$i/sshd_config" <<EOF
Port 22
ListenAddress $a
HostKey $STATE/h$i/host_key
AuthorizedKeysFile $STATE/authorized_keys
PidFile $STATE/h$i/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 100
MaxSessions 100
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
    start_sshd "$i"
    echo "$a" >> "$STATE/hosts"
  done
  # Every host answers ssh on its address (sshd is up and the bridge forwards).
  for ((i = 0; i < n; i++)); do
    local ok=0
    for _ in $(seq 1 50); do
      if ip netns exec "$(host_ns 0)" ssh -F "$STATE/ssh_config" -o ConnectTimeout=2 "$(host_addr "$i")" true 2>/dev/null; then
        ok=1
        break
      fi
      sleep 0.1
    done
    [ "$ok" = 1 ] || { echo "netns-cluster: host $i does not answer ssh on $(host_addr "$i") (log: $STATE/h$i/sshd.log)" >&2; false; }
  done
  trap - ERR INT TERM
  set +E

  echo "cluster $PREFIX: $n host(s) on $SUBNET.0/24${RATE:+, each link shaped to $RATE both ways}"
  for ((i = 0; i < n; i++)); do
    echo "  host $i: $(host_addr "$i")$([ "$SECOND" = 1 ] && echo " (second address $(second_addr "$i"))")  namespace $(host_ns "$i")"
  done
  echo "run a command on host H:  ip netns exec $PREFIX-hH COMMAND"
  echo "ssh to a host (from any host's namespace):  ssh -F $STATE/ssh_config root@ADDRESS"
  echo "ssh options for a job YAML:  ssh_key: $STATE/id_ed25519"
  echo "  ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, LogLevel=ERROR]"
  echo "remove it all:  $0 down --prefix $PREFIX"
}

do_status() {
  local nss n i ns
  nss=$(our_namespaces)
  if [ -z "$nss" ]; then
    echo "cluster $PREFIX: not up"
    return 0
  fi
  n=$(wc -l < "$STATE/hosts" 2>/dev/null || echo 0)
  echo "cluster $PREFIX: $n host(s); state in $STATE"
  for ((i = 0; i < n; i++)); do
    ns=$(host_ns "$i")
    local addrs link sshd
    addrs=$(ip -n "$ns" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}' | tr '\n' ' ')
    link=$(ip -n "$BR" -o link show "vh$i" 2>/dev/null | grep -q 'state UP' && echo up || echo down)
    sshd=$(sshd_running "$i" && echo running || echo stopped)
    echo "  host $i ($ns): ${addrs}link $link, sshd $sshd, $(ip netns pids "$ns" 2>/dev/null | wc -l) process(es)"
  done
}

case "$CMD" in
  up) do_up ;;
  down) do_down; echo "cluster $PREFIX: removed" ;;
  status) do_status ;;
  addr)
    check_host "$ARG"
    ip -n "$(host_ns "$ARG")" addr add "$(second_addr "$ARG")/24" dev eth0 2>/dev/null || true
    second_addr "$ARG" ;;
  cut) check_host "$ARG"; ip -n "$BR" link set "vh$ARG" down ;;
  restore)
    check_host "$ARG"
    ip -n "$BR" link set "vh$ARG" up
    signal_host CONT "$ARG"
    sshd_running "$ARG" || start_sshd "$ARG" || die "sshd of host $ARG did not start (log: $STATE/h$ARG/sshd.log)" ;;
  freeze) check_host "$ARG"; signal_host STOP "$ARG" ;;
  thaw) check_host "$ARG"; signal_host CONT "$ARG" ;;
  crash) check_host "$ARG"; signal_host KILL "$ARG" ;;
  *) die "unknown command '$CMD' (up, down, status, addr, cut, restore, freeze, thaw, crash)" ;;
esac
