#include "thread_pool.h"

namespace ssim2 {
namespace cpu {
namespace {

thread_local const ThreadPool* tls_pool = nullptr;
thread_local int tls_index = 0;

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::RunTasks(std::unique_lock<std::mutex>& lock) {
  while (next_ < count_) {
    const int i = next_++;
    const std::function<void(int)>* task = task_;
    lock.unlock();
    (*task)(i);
    lock.lock();
    if (++finished_ == count_) done_cv_.notify_all();
  }
}

int ThreadPool::ThreadIndex() const { return tls_pool == this ? tls_index : 0; }

void ThreadPool::WorkerLoop(int index) {
  tls_pool = this;
  tls_index = index;
  std::unique_lock<std::mutex> lock(mutex_);
  unsigned seen = generation_;
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    ++busy_workers_;
    RunTasks(lock);
    if (--busy_workers_ == 0) done_cv_.notify_all();
  }
}

void ThreadPool::ParallelFor(int count, const std::function<void(int)>& task) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    for (int i = 0; i < count; ++i) task(i);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  // A previous round's stragglers must have left before the state is reused.
  done_cv_.wait(lock, [&] { return busy_workers_ == 0; });
  task_ = &task;
  count_ = count;
  next_ = 0;
  finished_ = 0;
  ++generation_;
  work_cv_.notify_all();
  RunTasks(lock);
  done_cv_.wait(lock, [&] { return finished_ == count_ && busy_workers_ == 0; });
  task_ = nullptr;
  count_ = 0;
}

void ParallelFor(ThreadPool* pool, int count, const std::function<void(int)>& task) {
  if (pool) {
    pool->ParallelFor(count, task);
  } else {
    for (int i = 0; i < count; ++i) task(i);
  }
}

}  // namespace cpu
}  // namespace ssim2
