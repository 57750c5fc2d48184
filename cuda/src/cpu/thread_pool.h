// A small fixed pool of worker threads for the CPU path.
#pragma once

#include <condition_variable>
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
  // returns when every task has finished. Tasks must not throw.
  void ParallelFor(int count, const std::function<void(int)>& task);

 private:
  void WorkerLoop(int index);
  void RunTasks(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  const std::function<void(int)>* task_ = nullptr;
  int count_ = 0;
  int next_ = 0;
  int finished_ = 0;
  int busy_workers_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
};

// Runs inline when pool is null.
void ParallelFor(ThreadPool* pool, int count, const std::function<void(int)>& task);

}  // namespace cpu
}  // namespace ssim2
