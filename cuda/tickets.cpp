#include "cuda/tickets.h"

#include <string>
#include <thread>

#include "alpha_rule.h"
#include "cuda/layout.h"

namespace ssim2 {
namespace cuda {
namespace {

// The result of a slot: its passes folded by the alpha rule.
void ResultFromSums(const MetricPlan& plan, const double* sums, int passes, Result* out) {
  Result best;
  for (int pass = 0; pass < passes; ++pass) {
    Result r;
    FinishResult(plan, sums + pass * kSumsPerResult, &r);
    KeepLowerScore(pass, r, &best);
  }
  *out = best;
}

void CUDART_CB HostCallback(void* data) {
  Slot* slot = static_cast<Slot*>(data);
  Result r;
  ResultFromSums(*slot->plan, slot->sums, slot->passes, &r);
  slot->callback(slot->user_data, r);
  slot->busy.store(false, std::memory_order_release);
}

}  // namespace

Status TicketRing::Create(int slots) {
  slots_ = std::vector<Slot>(slots);
  for (Slot& s : slots_) SSIM2_RETURN_IF_ERROR(s.done.Create());
  return Status::Ok();
}

Status TicketRing::NextSlot(int* index) {
  *index = static_cast<int>(next_ticket_ % slots_.size());
  if (slots_[*index].busy.load(std::memory_order_acquire)) {
    return Status(StatusCode::kInvalidArgument,
                  "more than max_batch (" + std::to_string(slots_.size()) +
                      ") results outstanding: Wait() for earlier tickets first");
  }
  return Status::Ok();
}

std::size_t TicketRing::FreeInOrder() const {
  std::size_t n = 0;
  while (n < slots_.size() &&
         !slots_[(next_ticket_ + n) % slots_.size()].busy.load(std::memory_order_acquire)) {
    ++n;
  }
  return n;
}

Status TicketRing::Publish(int index, int passes, const MetricPlan* plan, const double* sums,
                           ResultCallback callback, void* user_data, cudaStream_t stream,
                           Ticket* ticket) {
  Slot& slot = slots_[index];
  slot.passes = passes;
  slot.callback = callback;
  slot.user_data = user_data;
  slot.plan = plan;
  slot.sums = sums;
  SSIM2_CUDA_CHECK(cudaEventRecord(slot.done.get(), stream));
  slot.ticket = next_ticket_;
  slot.busy.store(true, std::memory_order_release);
  if (callback) {
    const cudaError_t e = cudaLaunchHostFunc(stream, HostCallback, &slot);
    if (e != cudaSuccess) {
      slot.busy.store(false);
      return CudaStatus(e, "cudaLaunchHostFunc", __FILE__, __LINE__);
    }
  }
  *ticket = next_ticket_++;
  return Status::Ok();
}

Status TicketRing::Find(Ticket ticket, Slot** out) {
  Slot& slot = slots_[ticket % slots_.size()];
  if (!slot.busy.load(std::memory_order_acquire) || slot.ticket != ticket) {
    return Status(StatusCode::kInvalidArgument,
                  "unknown ticket " + std::to_string(ticket) +
                      " (already waited for, or its callback has run)");
  }
  *out = &slot;
  return Status::Ok();
}

Status TicketRing::Wait(Ticket ticket, Result* result) {
  Slot* slot = nullptr;
  SSIM2_RETURN_IF_ERROR(Find(ticket, &slot));
  const cudaError_t e = cudaEventSynchronize(slot->done.get());
  if (slot->callback) {
    // The callback releases the ticket; wait until it has run.
    while (e == cudaSuccess && slot->busy.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
  } else {
    slot->busy.store(false, std::memory_order_release);
  }
  if (e != cudaSuccess) return CudaStatus(e, "cudaEventSynchronize", __FILE__, __LINE__);
  // Surface asynchronous kernel errors.
  SSIM2_CUDA_CHECK(cudaGetLastError());
  if (result) ResultFromSums(*slot->plan, slot->sums, slot->passes, result);
  return Status::Ok();
}

Status TicketRing::Query(Ticket ticket, bool* done, Result* result) {
  Slot* slot = nullptr;
  SSIM2_RETURN_IF_ERROR(Find(ticket, &slot));
  const cudaError_t e = cudaEventQuery(slot->done.get());
  if (e == cudaErrorNotReady || (e == cudaSuccess && slot->callback)) {
    // (A ticket with a callback is done once the callback released it.)
    *done = false;
    return Status::Ok();
  }
  slot->busy.store(false, std::memory_order_release);
  if (e != cudaSuccess) return CudaStatus(e, "cudaEventQuery", __FILE__, __LINE__);
  *done = true;
  if (result) ResultFromSums(*slot->plan, slot->sums, slot->passes, result);
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
