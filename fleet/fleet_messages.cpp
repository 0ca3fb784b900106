#include "fleet/fleet_messages.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <stdexcept>

namespace tlp::fleet {

struct Mailbox::Pending {
  MPI_Request request = MPI_REQUEST_NULL;
  std::string text;
};

Mailbox::Mailbox() = default;
Mailbox::~Mailbox() = default;

void Mailbox::post(int rank, Tag tag, const nlohmann::json &message) {
  // Drop what was delivered.
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [](const std::unique_ptr<Pending> &p) {
                                  int done = 0;
                                  MPI_Test(&p->request, &done, MPI_STATUS_IGNORE);
                                  return done != 0;
                                }),
                 pending_.end());
  auto p = std::make_unique<Pending>();
  p->text = message.dump();
  if (MPI_Isend(p->text.data(), int(p->text.size()), MPI_CHAR, rank, tag, MPI_COMM_WORLD, &p->request) != MPI_SUCCESS)
    return;  // a lost rank: rank 0 notices by its silence
  pending_.push_back(std::move(p));
}

namespace {

Received read_probed(const MPI_Status &status) {
  int bytes = 0;
  MPI_Get_count(&status, MPI_CHAR, &bytes);
  std::string text(size_t(bytes), '\0');
  MPI_Recv(text.data(), bytes, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return {status.MPI_SOURCE, Tag(status.MPI_TAG), nlohmann::json::parse(text)};
}

}  // namespace

Received Mailbox::receive_from(int rank) {
  // Polls with a short sleep: MPI_Probe would spin, taking a core from the builds
  // and runs of this machine while the rank waits for work.
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(rank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS)
      throw std::runtime_error("the fleet lost its connection to rank " + std::to_string(rank));
    if (flag) return read_probed(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::optional<Received> Mailbox::poll() {
  int flag = 0;
  MPI_Status status;
  if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS || !flag)
    return std::nullopt;
  return read_probed(status);
}

}  // namespace tlp::fleet
