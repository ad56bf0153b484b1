#!/usr/bin/env bash
# Installs what distgnn needs to build and run, from Debian packages only.
# Idempotent and non-interactive: installs only what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libboost-dev libboost-program-options-dev
  libyaml-cpp-dev libspdlog-dev zlib1g-dev
  libssl-dev
  # the libFuzzer targets (scripts/fuzz.sh, a separate clang build)
  clang libclang-rt-14-dev
  libmetis-dev
  # the partitioner across machines (distgnn-mpi-partition): OpenMPI and PT-Scotch
  openmpi-bin libopenmpi-dev libptscotch-dev
  libtorch-dev libgloo-dev
  # Debian's LibTorch calls the system BLAS; the default reference BLAS makes a
  # dense layer 10x+ slower. OpenBLAS becomes the libblas.so.3 alternative.
  libopenblas0-openmp
  catch2
  # tests: the ssh launch path, and loading a model exported from Python
  openssh-server openssh-client rsync python3-torch
  # tests: launch under Slurm (scripts/slurm-cluster.sh: slurmctld, slurmd, the clients, munge)
  slurmctld slurmd slurm-client munge
  procps time
  # tests: the packet capture of a TLS job (test_integration "[tls]")
  tcpdump
  # the run report's plots (distgnn report), and the browser its test renders it in
  gnuplot-nox chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Make sure the optimized BLAS is the one libtorch loads.
blas=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | awk '/^Value:/{print $2}')
case "$blas" in
  *openblas*) echo "setup: BLAS is OpenBLAS ($blas)" ;;
  *) echo "setup: warning: libblas.so.3 is '$blas', not OpenBLAS; training will be slow" ;;
esac
