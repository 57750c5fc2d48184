// Results in flight: a ring of max_batch slots, one per ticket. A slot holds
// the event that marks its passes done, where their sums land in pinned
// memory, and the optional callback that receives the Result.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <vector>

#include "cuda/cuda_util.h"
#include "plan.h"
#include "cuda/engine.h"

namespace ssim2 {
namespace cuda {

using Ticket = Engine::Ticket;
using BatchTicket = Engine::BatchTicket;

struct Slot {
  // Set by Publish; cleared by Wait/Query, or for tickets with a callback by
  // the callback itself (on CUDA's host-function thread) once it returned.
  std::atomic<bool> busy{false};
  Ticket ticket = 0;
  int passes = 0;
  ResultCallback callback = nullptr;
  void* user_data = nullptr;
  const MetricPlan* plan = nullptr;
  const double* sums = nullptr;  // pinned, passes x kSumsPerResult
  Event done;
};

class TicketRing {
 public:
  Status Create(int slots);
  std::size_t size() const { return slots_.size(); }

  // The slot the next ticket will use (index in the ring); fails when it is
  // still outstanding.
  Status NextSlot(int* index);
  // After the slot's passes are enqueued on `stream`: records its event,
  // arms its callback and hands out its ticket. `sums`: pinned memory the
  // passes' sums are copied to.
  Status Publish(int index, int passes, const MetricPlan* plan, const double* sums,
                 ResultCallback callback, void* user_data, cudaStream_t stream,
                 Ticket* ticket);

  // How many tickets can be handed out before one must be waited for (the
  // ring is used in order).
  std::size_t FreeInOrder() const;

  Status Wait(Ticket ticket, Result* result);
  Status Query(Ticket ticket, bool* done, Result* result);

 private:
  Status Find(Ticket ticket, Slot** out);

  std::vector<Slot> slots_;
  Ticket next_ticket_ = 1;
};

}  // namespace cuda
}  // namespace ssim2
