// Completed MPI communication counts as progress for the watchdog
// (runtime/watchdog.h), PT-Scotch's included. SCOTCH_dgraphPart is one call that
// runs for many minutes on a large graph without returning to us, so stage
// marks alone forced a deadline longer than PT-Scotch's whole compute (it
// was an hour), and a cut-off host was noticed only that late.
// PT-Scotch talks to the other ranks all along, though: through the MPI
// profiling interface (PMPI) this executable defines the MPI functions that
// block or complete communication, each calling its PMPI_ twin between
// EnterMpi() and LeaveMpi() (the watchdog's clock runs only while a rank
// waits inside MPI, and a completed call resets it). The link exports them
// (CMakeLists.txt: --dynamic-list with MPI_*), so libptscotch's references,
// resolved by the dynamic linker in the executable first, reach these
// definitions and not libmpi's. Calls that only start communication
// (MPI_Isend, MPI_Irecv, MPI_Startall) are not wrapped; a test marks
// progress only when it reports completion. A blocked call to a host that is
// cut off never returns, so it never marks.
// Prototypes are OpenMPI 4's (const-qualified send buffers).
#include <mpi.h>

#include "roles/partition/mpi/runtime/progress_clock.h"

namespace {

// A blocking call: the watchdog's clock runs during it; progress when it
// succeeded and completed(), true unless it reports that nothing completed.
template <typename Call, typename Completed>
int Blocking(Call call, Completed completed) {
  dg::mpi::EnterMpi();
  const int rc = call();
  dg::mpi::LeaveMpi(rc == MPI_SUCCESS && completed());
  return rc;
}

template <typename Call>
int Blocking(Call call) {
  return Blocking(call, [] { return true; });
}

// A test: progress only when it reports completion; a miss starts a wait.
int Tested(int rc, bool completed) {
  dg::mpi::Polled(rc == MPI_SUCCESS && completed);
  return rc;
}

}  // namespace

extern "C" {

// Collectives.

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking([&] {
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking([&] {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  });
}

int MPI_Barrier(MPI_Comm comm) { return Blocking([&] { return PMPI_Barrier(comm); }); }

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking([&] {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return Blocking([&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking([&] {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  });
}

// Blocking point to point.

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return Blocking([&] { return PMPI_Send(buf, count, datatype, dest, tag, comm); });
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return Blocking([&] { return PMPI_Recv(buf, count, datatype, source, tag, comm, status); });
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return Blocking([&] {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  });
}

// Completion of nonblocking requests (MPI_UNDEFINED: no active request, nothing completed).

int MPI_Wait(MPI_Request* request, MPI_Status* status) { return Blocking([&] { return PMPI_Wait(request, status); }); }

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return Blocking([&] { return PMPI_Waitall(count, requests, statuses); });
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return Blocking([&] { return PMPI_Waitany(count, requests, index, status); },
                  [&] { return *index != MPI_UNDEFINED; });
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return Blocking([&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); },
                  [&] { return *outcount != MPI_UNDEFINED && *outcount > 0; });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const int rc = PMPI_Test(request, flag, status);
  return Tested(rc, *flag != 0);
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  const int rc = PMPI_Testall(count, requests, flag, statuses);
  return Tested(rc, *flag != 0);
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  const int rc = PMPI_Testany(count, requests, index, flag, status);
  return Tested(rc, *flag != 0 && *index != MPI_UNDEFINED);
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
  return Tested(rc, *outcount != MPI_UNDEFINED && *outcount > 0);
}

// Collective communicator calls (PT-Scotch's) and the end of the run: they
// wait on every rank too.

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) { return Blocking([&] { return PMPI_Comm_dup(comm, newcomm); }); }

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return Blocking([&] { return PMPI_Comm_split(comm, color, key, newcomm); });
}

int MPI_Finalize(void) { return Blocking([] { return PMPI_Finalize(); }); }

}  // extern "C"
