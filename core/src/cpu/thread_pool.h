// A small fixed pool of worker threads for the CPU path.
//
// The band-wise pipeline calls ParallelFor a few hundred times per image
// pair, so a round has to start and finish in microseconds: tasks are handed
// out through one atomic counter, and workers spin briefly for the next
// round before they sleep.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ssim2 {
namespace cpu {

class ThreadPool {
 public:
  // threads <= 0: one per hardware thread. With one thread, work runs inline.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Index in [0, size()) of the calling thread within this pool: 0 for the
  // thread that calls ParallelFor (or any thread outside the pool), so that
  // tasks can use per-thread scratch.
  int ThreadIndex() const;

  // Runs task(i) for i in [0, count) on all threads (the caller included) and
  // returns when every task has finished. Tasks must not throw. One caller at
  // a time.
  void ParallelFor(int count, const std::function<void(int)>& task);

 private:
  void WorkerLoop(int index);
  // Takes and runs tasks of round `round` until none is left.
  void RunTasks(std::uint32_t round);

  std::vector<std::thread> workers_;
  // High 32 bits: the round; low 32 bits: the next task index of that round.
  // A worker only takes a task while the round is still the one it joined.
  std::atomic<std::uint64_t> next_{0};
  std::atomic<const std::function<void(int)>*> task_{nullptr};
  std::atomic<int> count_{0};
  std::atomic<int> unfinished_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};
};

// Runs inline when pool is null.
void ParallelFor(ThreadPool* pool, int count, const std::function<void(int)>& task);

}  // namespace cpu
}  // namespace ssim2
