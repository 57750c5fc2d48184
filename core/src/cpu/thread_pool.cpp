#include "thread_pool.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ssim2 {
namespace cpu {
namespace {

thread_local const ThreadPool* tls_pool = nullptr;
thread_local int tls_index = 0;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// How long an idle worker polls for the next round before it sleeps: long
// enough to bridge the gap between two rounds of one image pair, short
// enough not to hold a core between pairs. After the first few polls it
// yields, so that on a busy or oversubscribed machine the threads with work
// (this pool's included) get the core.
constexpr auto kSpinTime = std::chrono::microseconds(200);
constexpr int kPollsBeforeYield = 64;

// Polls `done` until it returns true or kSpinTime has passed; returns its
// last answer.
template <typename Done>
bool SpinUntil(Done done) {
  const auto start = std::chrono::steady_clock::now();
  for (int poll = 0;; ++poll) {
    if (done()) return true;
    if (poll < kPollsBeforeYield) {
      CpuRelax();
      continue;
    }
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() - start > kSpinTime) return done();
  }
}

inline std::uint32_t RoundOf(std::uint64_t next) { return static_cast<std::uint32_t>(next >> 32); }

// Task index of a round that takes no more tasks (above any count).
constexpr std::uint64_t kClosed = 0xffffffffu;

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
    const std::uint32_t index = static_cast<std::uint32_t>(next);  // kClosed: above any count
    if (index >= static_cast<std::uint32_t>(count)) return;
    // Pairs with the release fence in ParallelFor: if `count` or `task` came
    // from a later round, the claim below sees that round's closing value.
    std::atomic_thread_fence(std::memory_order_acquire);
    // Claiming the index also proves that `count` and `task` belong to this
    // round: ParallelFor closes a round (kClosed) before it writes them for
    // the next one, so a claim that read them too late fails.
    if (!next_.compare_exchange_weak(next, next + 1, std::memory_order_acq_rel)) continue;
    (*task)(static_cast<int>(index));
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
    SpinUntil([&] {
      round = RoundOf(next_.load(std::memory_order_acquire));
      return round != seen;
    });
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
  // Close the previous round first: a worker still inside it may have read
  // the new count below, but its claim of an old index fails on this value.
  const std::uint32_t round = RoundOf(next_.load(std::memory_order_relaxed)) + 1;
  next_.store((static_cast<std::uint64_t>(round - 1) << 32) | kClosed, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  task_.store(&task, std::memory_order_relaxed);
  count_.store(count, std::memory_order_relaxed);
  unfinished_.store(count, std::memory_order_relaxed);
  {
    // Under the lock so that a worker about to sleep sees the new round.
    std::lock_guard<std::mutex> lock(mutex_);
    next_.store(static_cast<std::uint64_t>(round) << 32, std::memory_order_release);
  }
  wake_.notify_all();
  RunTasks(round);
  // The last tasks are running on other threads: wait for them, yielding.
  while (!SpinUntil([&] { return unfinished_.load(std::memory_order_acquire) == 0; })) {
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
