#include <mpi.h>
#include <csignal>
#include <cstdio>
#include <unistd.h>
#include <chrono>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    // Each worker sends 5 results, one per 0.3 s; rank 1 kills itself after 2.
    int got[16] = {0};
    auto start = std::chrono::steady_clock::now();
    int total = 0;
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(6)) {
      int flag = 0; MPI_Status st;
      int rc = MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st);
      if (rc != MPI_SUCCESS) { printf("rank0: Iprobe error %d\n", rc); fflush(stdout); usleep(100000); continue; }
      if (!flag) { usleep(10000); continue; }
      int v; rc = MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      got[st.MPI_SOURCE]++; total++;
    }
    for (int r = 1; r < size; ++r) printf("rank0: from rank %d got %d\n", r, got[r]);
    // Try sending to the dead rank with Isend and test.
    int v = 7; MPI_Request req; int rc = MPI_Isend(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
    printf("rank0: Isend to dead rank rc=%d\n", rc); fflush(stdout);
    for (int r = 2; r < size; ++r) MPI_Send(&v, 1, MPI_INT, r, 2, MPI_COMM_WORLD);
    printf("rank0: done\n"); fflush(stdout);
    _exit(0);
  } else {
    for (int i = 0; i < 5; ++i) {
      usleep(300000);
      MPI_Send(&i, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
      if (rank == 1 && i == 1) raise(SIGKILL);
    }
    int v; MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    _exit(0);
  }
}
