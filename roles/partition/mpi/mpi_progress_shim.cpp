// Completed MPI communication counts as progress for the watchdog
// (mpi_watchdog.h), PT-Scotch's included. SCOTCH_dgraphPart is one call that
// runs for many minutes on a large graph without returning to us, so stage
// marks alone would force a deadline longer than PT-Scotch's whole compute
// (an hour by default), and a cut-off host would be noticed only that late.
// PT-Scotch talks to the other ranks all along, though: through the MPI
// profiling interface (PMPI) this executable defines the MPI functions that
// complete communication, each calling its PMPI_ twin and then marking
// progress. The link exports them (CMakeLists.txt: --dynamic-list with
// MPI_*), so libptscotch's references, resolved by the dynamic linker in
// the executable first, reach these definitions and not libmpi's. Calls that
// only start communication (MPI_Isend, MPI_Irecv, MPI_Startall) mark
// nothing; a test marks only when it reports completion. A blocked call to a
// host that is cut off never returns, so it never marks.
// Prototypes are OpenMPI 4's (const-qualified send buffers).
#include <mpi.h>

#include "roles/partition/mpi/mpi_watchdog.h"

namespace {

// The call's result, after marking progress when it succeeded.
int Marked(int rc) {
  if (rc == MPI_SUCCESS) dg::mpi::MpiProgress();
  return rc;
}

// The call's result, after marking progress when it completed something.
int MarkedIf(int rc, bool completed) {
  if (rc == MPI_SUCCESS && completed) dg::mpi::MpiProgress();
  return rc;
}

}  // namespace

extern "C" {

// Collectives.

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return Marked(PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Marked(PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Marked(PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return Marked(PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Marked(
      PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
}

int MPI_Barrier(MPI_Comm comm) { return Marked(PMPI_Barrier(comm)); }

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return Marked(PMPI_Bcast(buffer, count, datatype, root, comm));
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Marked(PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Marked(PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Marked(PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return Marked(PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Marked(PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Marked(PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Marked(PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

// Blocking point to point.

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return Marked(PMPI_Send(buf, count, datatype, dest, tag, comm));
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return Marked(PMPI_Recv(buf, count, datatype, source, tag, comm, status));
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return Marked(PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, status));
}

// Completion of nonblocking requests (MPI_UNDEFINED: no active request, nothing completed).

int MPI_Wait(MPI_Request* request, MPI_Status* status) { return Marked(PMPI_Wait(request, status)); }

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return Marked(PMPI_Waitall(count, requests, statuses));
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  const int rc = PMPI_Waitany(count, requests, index, status);
  return MarkedIf(rc, *index != MPI_UNDEFINED);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  return MarkedIf(rc, *outcount != MPI_UNDEFINED && *outcount > 0);
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const int rc = PMPI_Test(request, flag, status);
  return MarkedIf(rc, *flag != 0);
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  const int rc = PMPI_Testall(count, requests, flag, statuses);
  return MarkedIf(rc, *flag != 0);
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  const int rc = PMPI_Testany(count, requests, index, flag, status);
  return MarkedIf(rc, *flag != 0 && *index != MPI_UNDEFINED);
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
  return MarkedIf(rc, *outcount != MPI_UNDEFINED && *outcount > 0);
}

}  // extern "C"
