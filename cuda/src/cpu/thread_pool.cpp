#include "thread_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ssim2 {
namespace cpu {
namespace {

thread_local const ThreadPool* tls_pool = nullptr;
thread_local int tls_index = 0;

// How long an idle worker polls for the next round before it sleeps: long
// enough to bridge the gap between two rounds of one image pair, short
// enough not to hold a core between pairs.
constexpr int kSpinRounds = 20000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

inline std::uint32_t RoundOf(std::uint64_t next) { return static_cast<std::uint32_t>(next >> 32); }

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
    // A new round number wakes spinning workers too.
    next_.fetch_add(std::uint64_t{1} << 32);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

int ThreadPool::ThreadIndex() const { return tls_pool == this ? tls_index : 0; }

void ThreadPool::RunTasks(std::uint32_t round) {
  std::uint64_t next = next_.load(std::memory_order_acquire);
  for (;;) {
    if (RoundOf(next) != round) return;
    const int count = count_.load(std::memory_order_relaxed);
    const std::function<void(int)>* task = task_.load(std::memory_order_relaxed);
    const int index = static_cast<int>(next & 0xffffffffu);
    if (index >= count) return;
    // Claiming the index also proves that `count` and `task` belong to this
    // round: the round cannot end before this task is done.
    if (!next_.compare_exchange_weak(next, next + 1, std::memory_order_acq_rel)) continue;
    (*task)(index);
    unfinished_.fetch_sub(1, std::memory_order_acq_rel);
    next = next_.load(std::memory_order_acquire);
  }
}

void ThreadPool::WorkerLoop(int index) {
  tls_pool = this;
  tls_index = index;
  std::uint32_t seen = RoundOf(next_.load(std::memory_order_acquire));
  for (;;) {
    std::uint32_t round = seen;
    for (int spin = 0; spin < kSpinRounds && round == seen; ++spin) {
      CpuRelax();
      round = RoundOf(next_.load(std::memory_order_acquire));
    }
    if (round == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] {
        return stop_ || RoundOf(next_.load(std::memory_order_acquire)) != seen;
      });
      if (stop_) return;
      round = RoundOf(next_.load(std::memory_order_acquire));
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = round;
    RunTasks(round);
  }
}

void ThreadPool::ParallelFor(int count, const std::function<void(int)>& task) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    for (int i = 0; i < count; ++i) task(i);
    return;
  }
  task_.store(&task, std::memory_order_relaxed);
  count_.store(count, std::memory_order_relaxed);
  unfinished_.store(count, std::memory_order_relaxed);
  const std::uint32_t round = RoundOf(next_.load(std::memory_order_relaxed)) + 1;
  {
    // Under the lock so that a worker about to sleep sees the new round.
    std::lock_guard<std::mutex> lock(mutex_);
    next_.store(static_cast<std::uint64_t>(round) << 32, std::memory_order_release);
  }
  wake_.notify_all();
  RunTasks(round);
  for (int spin = 0; unfinished_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < kSpinRounds) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
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
