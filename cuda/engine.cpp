// ssim2::cuda::Engine: the public calls. Each one makes the engine's context
// current (context.h) and hands over to Engine::Impl: passes.cpp decides what
// to enqueue, upload.cpp moves host inputs, tickets.cpp returns the results.
#include "cuda/engine.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alpha_rule.h"
#include "cuda/engine_impl.h"
#include "image_checks.h"

namespace ssim2 {
namespace cuda {

#define SSIM2_GUARD()                                           \
  ContextGuard guard_(impl_->options.context, impl_->cuda_device);  \
  if (!guard_.status().ok()) return guard_.status()

Engine::Impl::~Impl() {
  if (!res) return;
  ContextGuard guard(options.context, cuda_device);
  lanes.clear();  // each waits for its stream; they read this engine's cache
  second.reset();  // it may write this engine's cache
  if (res->stream.get()) cudaStreamSynchronize(res->stream.get());
  res.reset();
}

Engine::Engine() = default;
Engine::~Engine() = default;
Engine::Engine(Engine&& other) noexcept = default;
Engine& Engine::operator=(Engine&& other) noexcept = default;

Status Engine::Create(int width, int height, const EngineOptions& options, Engine* out) {
  if (!out) return Status(StatusCode::kInvalidArgument, "Engine::Create: out is null");
  *out = Engine();
  if (Status s = ValidateMinimumSize(width, height); !s.ok()) return s;
  if (options.max_batch < 1 || options.max_batch > 1024) {
    return Status(StatusCode::kInvalidArgument, "max_batch must be 1..1024");
  }
  if (options.lane_scale_groups < 0 || options.lane_scale_groups > kMaxGroups) {
    return Status(StatusCode::kInvalidArgument,
                  "lane_scale_groups must be 0.." + std::to_string(kMaxGroups));
  }
  if (options.batch_streams < 1 || options.batch_streams > kMaxBatchStreams) {
    return Status(StatusCode::kInvalidArgument,
                  "batch_streams must be 1.." + std::to_string(kMaxBatchStreams));
  }
  if (!options.context) {
    std::string why;
    if (!DeviceAvailable(&why)) return Status(StatusCode::kBackendUnavailable, why);
  }
  std::unique_ptr<Impl> impl;
  SSIM2_RETURN_IF_ERROR(Impl::Create(width, height, options, nullptr, Executor::kReference, &impl));
  out->impl_ = std::move(impl);
  return Status::Ok();
}

Status Engine::Impl::Create(int width, int height, const EngineOptions& options,
                            const Impl* cache_owner, Executor role, std::unique_ptr<Impl>* out) {
  auto impl = std::make_unique<Impl>();
  impl->width = width;
  impl->height = height;
  impl->options = options;
  impl->cuda_device = options.context ? -1 : options.cuda_device;
  ContextGuard guard(options.context, impl->cuda_device);
  if (!guard.status().ok()) return guard.status();
  int dev = 0;
  SSIM2_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  SSIM2_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  impl->device_name = prop.name;
  if (impl->cuda_device < 0 && !options.context) impl->cuda_device = dev;

  // SSIM2_CUDA_PAGEABLE_UPLOAD=direct: pageable host inputs are handed to
  // cudaMemcpy2DAsync as they are (the driver stages them) instead of being
  // copied into the engine's pinned staging first. For measuring which is
  // faster on a given machine (ssim2-bench does both).
  const char* upload_mode = std::getenv("SSIM2_CUDA_PAGEABLE_UPLOAD");
  const bool pageable_direct = upload_mode && std::string(upload_mode) == "direct";
  SSIM2_RETURN_IF_ERROR(impl->PlanMemory(cache_owner, role));
  impl->res = std::make_unique<Impl::Resources>();
  Impl::Resources& r = *impl->res;
  SSIM2_RETURN_IF_ERROR(r.memory.Allocate(impl->layout.total_bytes));
  if (cache_owner) {
    for (int k = 0; k < kCacheSlots; ++k) impl->cache_base[k] = cache_owner->cache_base[k];
  }
  impl->MakeAllTables();
  if (options.stream) {
    r.stream.Borrow(static_cast<cudaStream_t>(options.stream));
  } else {
    SSIM2_RETURN_IF_ERROR(r.stream.CreateOwned());
  }
  SSIM2_RETURN_IF_ERROR(r.results.Allocate(static_cast<std::size_t>(impl->layout.num_result_slots) *
                                           kSumsPerResult * sizeof(double)));
  std::memset(r.results.get(), 0, r.results.bytes());
  SSIM2_RETURN_IF_ERROR(r.uploads.Create(pageable_direct));
  SSIM2_RETURN_IF_ERROR(r.tickets.Create(options.max_batch));
  // Zero everything once (row padding is then defined), then the job tables.
  SSIM2_CUDA_CHECK(cudaMemsetAsync(r.memory.get(), 0, impl->layout.total_bytes, r.stream.get()));
  SSIM2_RETURN_IF_ERROR(impl->UploadTables());
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(r.stream.get()));
  *out = std::move(impl);
  return Status::Ok();
}

namespace {

std::string Bytes(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

}  // namespace

Status Engine::Impl::PlanMemory(const Impl* cache_owner, Executor role) {
  const std::size_t limit = options.memory_limit;
  LayoutOptions lo;
  lo.all_features = options.all_features;
  lo.result_slots = kMaxAlphaPasses * options.max_batch;
  // An engine scores pairs only once it has grown (EnsurePairMemory).
  lo.executor = role;
  lo.keep_linear = options.keep_linear_planes;
  lo.sequential_sums = options.sequential_sums;
  // A lane blurs in the groups its owner chose for its lanes (LaneGroups).
  lo.groups = role == Executor::kLane ? cache_owner->lane_groups : 1;
  layout = MakeLayout(width, height, lo);
  if (cache_owner || limit == 0) return Status::Ok();
  // The scale groups are chosen so that the engine can do everything: pair
  // passes and a cached reference.
  auto everything = [&](int groups) {
    LayoutOptions all = lo;
    all.executor = Executor::kEngine;
    all.groups = groups;
    return MakeLayout(width, height, all).total_bytes + layout.cache.total_bytes;
  };
  const std::size_t one_group = everything(1);
  if (one_group <= limit) return Status::Ok();
  lo.groups = kMaxGroups;
  layout = MakeLayout(width, height, lo);
  const std::size_t pass = layout.total_bytes;
  if (pass > limit) {
    return Status(StatusCode::kOutOfMemory,
                  "the device memory limit of " + Bytes(limit) + " is below the " +
                      Bytes(pass) + " that one pass of " + std::to_string(width) + "x" +
                      std::to_string(height) + " needs (" +
                      Bytes(pass + layout.cache.total_bytes) +
                      " with a cached reference): raise the limit or score smaller frames");
  }
  limits += "Scale 0 is blurred after the smaller scales instead of beside them (" +
            Bytes(everything(kMaxGroups)) + " instead of " + Bytes(one_group) +
            " for pairs and a cached reference; passes take longer). ";
  return Status::Ok();
}

Status Engine::Impl::EnsurePairMemory() {
  if (layout.scores_pairs()) return Status::Ok();
  LayoutOptions lo = layout.options;
  lo.executor = Executor::kEngine;
  const Layout grown = MakeLayout(width, height, lo);
  if (options.memory_limit &&
      memory_bytes() - layout.total_bytes + grown.total_bytes > options.memory_limit) {
    return Status(StatusCode::kOutOfMemory,
                  "the device memory limit of " + Bytes(options.memory_limit) +
                      " leaves no room for the planes of a pair (" +
                      Bytes(grown.total_bytes - layout.total_bytes) + " more)");
  }
  // Nothing enqueued may still use the old memory (a lane uses only its
  // own and the cache), which is freed before the new is allocated: under a
  // limit the two must not be held at once.
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(stream()));
  Status grew = res->memory.Allocate(grown.total_bytes);
  if (grew.ok()) {
    layout = grown;
  } else if (const Status back = res->memory.Allocate(layout.total_bytes); !back.ok()) {
    return Status(StatusCode::kOutOfMemory,
                  grew.message() + "; and the engine's working memory could not be allocated "
                                   "again: create the engine anew");
  }
  MakeAllTables();
  SSIM2_CUDA_CHECK(cudaMemsetAsync(base(), 0, layout.total_bytes, stream()));
  SSIM2_RETURN_IF_ERROR(UploadTables());
  return grew;
}

void Engine::Impl::MakeAllTables() {
  for (int k = 0; k < kCacheSlots; ++k) tables[k] = MakeTables(layout, base(), cache_base[k], k);
}

Status Engine::Impl::UploadTables(int slot) {
  for (int k = 0; k < kCacheSlots; ++k) {
    if (slot >= 0 && k != slot) continue;
    const LaunchTables& t = tables[k];
    SSIM2_CUDA_CHECK(cudaMemcpyAsync(base() + t.jobs, t.blob.data(), t.blob.size(),
                                     cudaMemcpyHostToDevice, stream()));
  }
  return Status::Ok();
}

Status Engine::Impl::EnsureCache() {
  if (res->cache.get()) return Status::Ok();
  const std::size_t bytes = layout.cache.total_bytes;
  if (options.memory_limit && memory_bytes() + bytes > options.memory_limit) {
    return Status(StatusCode::kOutOfMemory,
                  "the device memory limit of " + Bytes(options.memory_limit) +
                      " leaves no room for the reference cache (" + Bytes(bytes) + " beside " +
                      Bytes(memory_bytes()) + " of working memory)");
  }
  SSIM2_RETURN_IF_ERROR(res->cache.Allocate(bytes));
  SSIM2_CUDA_CHECK(cudaMemsetAsync(res->cache.get(), 0, bytes, stream()));
  cache_base[0] = res->cache.get();
  // The kRef and kCached tables point into the cache; the blob's layout
  // changes with them, and the passes enqueued before read the old one first.
  tables[0] = MakeTables(layout, base(), cache_base[0], 0);
  return UploadTables(0);
}

bool Engine::Impl::EnsureSecondEngine() {
  if (second) return true;
  if (!options.second_engine || !cache_base[0]) return false;
  const std::size_t bytes = SecondEngineNeeds();
  if (options.memory_limit && memory_bytes() + bytes > options.memory_limit) {
    if (!second_engine_limited) {
      second_engine_limited = true;
      const std::size_t used = memory_bytes();
      limits += "No second engine: a reference set while a batch is in flight is prepared after "
                "it (it needs " + Bytes(bytes) + ", and the device memory limit of " +
                Bytes(options.memory_limit) + " leaves " +
                Bytes(options.memory_limit > used ? options.memory_limit - used : 0) +
                " beside the first engine's " + Bytes(used) + "). ";
    }
    return false;
  }
  EngineOptions o = options;
  o.stream = nullptr;  // its own stream: the point is to run beside this one
  o.cuda_device = cuda_device;
  o.batch_streams = 1;
  o.max_batch = 1;
  std::unique_ptr<Impl> made;
  // Without the memory the engine goes on alone, and tries again with the
  // next reference set while a batch is in flight, as a batch tries its lanes.
  if (!Create(width, height, o, this, Executor::kPreparer, &made).ok()) return false;
  if (!made->res->cache.Allocate(layout.cache.total_bytes).ok() || !made->res->ready.Create().ok() ||
      cudaMemsetAsync(made->res->cache.get(), 0, layout.cache.total_bytes, made->stream()) !=
          cudaSuccess) {
    return false;
  }
  for (auto& e : res->read_done) {
    if (!e.get() && !e.Create().ok()) return false;
  }
  // Slot 1 is the second engine's cache: every executor gets its tables.
  std::vector<Impl*> executors{this, made.get()};
  for (auto& lane : lanes) executors.push_back(lane.get());
  bool uploaded = true;
  for (Impl* e : executors) {
    e->cache_base[1] = made->res->cache.get();
    e->tables[1] = MakeTables(e->layout, e->base(), e->cache_base[1], 1);
    uploaded = uploaded && e->UploadTables(1).ok();
  }
  if (!uploaded) {  // slot 1 is used only with a second engine
    for (Impl* e : executors) e->cache_base[1] = nullptr;
    return false;
  }
  second = std::move(made);
  return true;
}

std::size_t Engine::Impl::memory_bytes() const {
  std::size_t sum = res->memory.bytes() + res->cache.bytes() + second_engine_bytes();
  for (const auto& lane : lanes) sum += lane->memory_bytes();
  return sum;
}

std::size_t Engine::Impl::SecondEngineNeeds() const {
  LayoutOptions lo = layout.options;
  lo.executor = Executor::kPreparer;
  lo.result_slots = kMaxAlphaPasses;  // of max_batch 1 (EnsureSecondEngine)
  return MakeLayout(width, height, lo).total_bytes + layout.cache.total_bytes;
}

std::size_t Engine::Impl::LaneBytes(int groups) const {
  LayoutOptions lo = layout.options;
  lo.executor = Executor::kLane;
  lo.groups = groups;
  return MakeLayout(width, height, lo).total_bytes;
}

int Engine::Impl::LaneGroups(std::size_t count) {
  if (options.lane_scale_groups) return options.lane_scale_groups;
  // Large frames take two by default: nothing a limit asked for is given
  // up, so no word in `limits`.
  if (DefaultLaneGroups(width, height) == kMaxGroups) return kMaxGroups;
  const std::size_t limit = options.memory_limit;
  if (!limit) return 1;
  // One group where every lane of the batch fits beside the second engine
  // (made later, when a reference is set while a batch is in flight); else
  // two where that makes them fit; else one where the lanes fit without the
  // second engine, which is then left out; else two, as many as fit.
  const std::size_t used = memory_bytes();
  const std::size_t second_needs = options.second_engine && !second ? SecondEngineNeeds() : 0;
  const std::size_t one = LaneBytes(1);
  const std::size_t two = LaneBytes(kMaxGroups);
  if (used + count * one + second_needs <= limit) return 1;
  if (used + count * two + second_needs > limit && used + count * one <= limit) return 1;
  limits += "Batch lanes blur scale 0 after the smaller scales (" + Bytes(two) + " each instead of " +
            Bytes(one) + "; batches take longer). ";
  return kMaxGroups;
}

Status Engine::Impl::EnsureLanes(std::size_t count) {
  if (lanes.size() >= count) return Status::Ok();
  if (!lane_groups) lane_groups = LaneGroups(count);
  if (!res->fork.get()) SSIM2_RETURN_IF_ERROR(res->fork.Create());
  EngineOptions lane_options = options;
  lane_options.stream = nullptr;  // a stream of its own
  lane_options.cuda_device = cuda_device;
  lane_options.batch_streams = 1;
  const std::size_t lane_bytes = options.memory_limit ? LaneBytes(lane_groups) : 0;
  while (lanes.size() < count) {
    if (options.memory_limit) {
      if (memory_bytes() + lane_bytes > options.memory_limit) {
        if (!lanes_limited) {
          lanes_limited = true;
          limits += "Batches run on " + std::to_string(lanes.size() + 1) + " of " +
                    std::to_string(count + 1) + " streams (a lane needs " + Bytes(lane_bytes) +
                    "). ";
        }
        return Status(StatusCode::kOutOfMemory, "no room for another batch lane");
      }
    }
    std::unique_ptr<Impl> lane;
    SSIM2_RETURN_IF_ERROR(Create(width, height, lane_options, this, Executor::kLane, &lane));
    for (auto& e : lane->res->read_done) SSIM2_RETURN_IF_ERROR(e.Create());
    lanes.push_back(std::move(lane));
  }
  return Status::Ok();
}

Status Engine::Impl::LanesFor(std::size_t count, std::size_t* used) {
  // Against an alpha reference every image takes full passes, which a lane
  // has no memory for: the engine's stream scores them all.
  const std::size_t streams = reference_alpha ? 1 : static_cast<std::size_t>(options.batch_streams);
  const std::size_t executors = std::min(streams, count);
  if (executors > 1) {
    const Status made = EnsureLanes(executors - 1);
    // Without the memory for lanes the batch still runs, on this stream.
    if (!made.ok() && made.code() != StatusCode::kOutOfMemory) return made;
  }
  *used = executors == 0 ? 0 : std::min(executors - 1, lanes.size());
  return Status::Ok();
}

Status Engine::Impl::SubmitBatch(const ImageView* distorted, std::size_t count,
                                 BatchTicket* ticket) {
  std::size_t used = 0;
  SSIM2_RETURN_IF_ERROR(LanesFor(count, &used));
  const std::size_t executors = used + 1;
  auto executor = [&](std::size_t e) { return e == 0 ? this : lanes[e - 1].get(); };
  // Image i runs on executor i % executors: each takes its share of tickets.
  for (std::size_t e = 0; e < executors && e < count; ++e) {
    const std::size_t share = (count - e + executors - 1) / executors;
    if (executor(e)->res->tickets.FreeInOrder() < share) {
      return Status(StatusCode::kInvalidArgument,
                    "not enough free tickets for a batch of " + std::to_string(count) +
                        " images: wait for earlier batches or tickets first");
    }
  }
  if (used > 0) {
    SSIM2_CUDA_CHECK(cudaEventRecord(res->fork.get(), stream()));
    for (std::size_t l = 0; l < used; ++l) {
      Impl& lane = *lanes[l];
      SSIM2_CUDA_CHECK(cudaStreamWaitEvent(lane.stream(), res->fork.get(), 0));
      lane.has_reference = has_reference;
      lane.reference_alpha = reference_alpha;
      lane.reference_raw = reference_raw;
      lane.slot = slot;
    }
  }
  SubmittedBatch batch;
  batch.id = next_batch++;
  Status status;
  for (std::size_t i = 0; i < count && status.ok(); ++i) {
    Impl* engine = executor(i % executors);
    Ticket t = 0;
    status = engine->Enqueue(nullptr, distorted[i], &t, nullptr, nullptr);
    if (status.ok()) batch.parts.push_back({engine, t, i});
  }
  // Whoever writes this cache slot next waits for the lanes' reads
  // (WaitForReaders); the lanes go on with the next batch meanwhile.
  for (std::size_t l = 0; l < used; ++l) {
    Impl& lane = *lanes[l];
    const cudaError_t recorded = cudaEventRecord(lane.res->read_done[slot].get(), lane.stream());
    if (recorded == cudaSuccess) {
      lane.res->read_recorded[slot] = true;
    } else if (status.ok()) {
      status = CudaStatus(recorded, "marking a batch lane's reads", __FILE__, __LINE__);
    }
  }
  if (!status.ok()) {
    // Nothing of a failed submit stays outstanding.
    for (const BatchPart& p : batch.parts) p.engine->res->tickets.Wait(p.ticket, nullptr);
    return status;
  }
  *ticket = batch.id;
  batches.push_back(std::move(batch));
  return Status::Ok();
}

Status Engine::Impl::WaitBatch(BatchTicket ticket, Result* results) {
  auto it = std::find_if(batches.begin(), batches.end(),
                         [&](const SubmittedBatch& b) { return b.id == ticket; });
  if (it == batches.end()) {
    return Status(StatusCode::kInvalidArgument,
                  "unknown batch ticket " + std::to_string(ticket) + " (already waited for?)");
  }
  const SubmittedBatch batch = std::move(*it);
  batches.erase(it);
  Status status;
  for (const BatchPart& p : batch.parts) {
    const Status w = p.engine->res->tickets.Wait(p.ticket, results ? &results[p.index] : nullptr);
    if (status.ok() && !w.ok()) status = w;
  }
  return status;
}

Status Engine::Impl::ScoreBatch(const ImageView* distorted, std::size_t count,
                                Result* results) {
  if (count == 0) return Status::Ok();
  std::size_t used = 0;
  SSIM2_RETURN_IF_ERROR(LanesFor(count, &used));
  // Rounds as large as the tickets of every stream hold.
  std::size_t per_executor = res->tickets.FreeInOrder();
  for (std::size_t l = 0; l < used; ++l) {
    per_executor = std::min(per_executor, lanes[l]->res->tickets.FreeInOrder());
  }
  if (per_executor == 0) {
    return Status(StatusCode::kInvalidArgument,
                  "every ticket is outstanding: wait for earlier batches or tickets first");
  }
  const std::size_t per_round = (used + 1) * per_executor;
  for (std::size_t first = 0; first < count; first += per_round) {
    const std::size_t n = std::min(per_round, count - first);
    BatchTicket t = 0;
    SSIM2_RETURN_IF_ERROR(SubmitBatch(distorted + first, n, &t));
    SSIM2_RETURN_IF_ERROR(WaitBatch(t, results + first));
  }
  return Status::Ok();
}

int Engine::width() const { return impl_ ? impl_->width : 0; }
int Engine::height() const { return impl_ ? impl_->height : 0; }
int Engine::num_scales() const { return impl_ ? impl_->layout.plan.num_scales : 0; }
std::size_t Engine::memory_bytes() const { return impl_ ? impl_->memory_bytes() : 0; }
std::size_t Engine::pinned_bytes() const {
  if (!impl_) return 0;
  auto pinned = [](const Impl& e) { return e.res->results.bytes() + e.res->uploads.pinned_bytes(); };
  std::size_t sum = pinned(*impl_);
  for (const auto& lane : impl_->lanes) sum += pinned(*lane);
  return sum;
}
std::size_t Engine::second_engine_bytes() const {
  return impl_ ? impl_->second_engine_bytes() : 0;
}
std::string Engine::limits() const {
  if (!impl_) return std::string();
  std::string s = impl_->limits;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
int Engine::batch_lanes() const { return impl_ ? static_cast<int>(impl_->lanes.size()) : 0; }
std::string Engine::device_name() const { return impl_ ? impl_->device_name : std::string(); }
void* Engine::stream() const { return impl_ ? static_cast<void*>(impl_->stream()) : nullptr; }
bool Engine::has_reference() const { return impl_ && impl_->has_reference; }

#define SSIM2_NEED_IMPL()                                                         \
  if (!impl_) return Status(StatusCode::kInvalidArgument, "engine not created")

Status Engine::SetReference(const ImageView& reference) {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  return impl_->SetReference(reference);
}

Status Engine::Compute(const ImageView& reference, const ImageView& distorted, Result* result) {
  SSIM2_NEED_IMPL();
  if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
  SSIM2_GUARD();
  Ticket t;
  SSIM2_RETURN_IF_ERROR(impl_->Enqueue(&reference, distorted, &t, nullptr, nullptr));
  return impl_->res->tickets.Wait(t, result);
}

Status Engine::Compute(const ImageView& distorted, Result* result) {
  SSIM2_NEED_IMPL();
  if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
  SSIM2_GUARD();
  Ticket t;
  SSIM2_RETURN_IF_ERROR(impl_->Enqueue(nullptr, distorted, &t, nullptr, nullptr));
  return impl_->res->tickets.Wait(t, result);
}

Status Engine::ComputeBatch(const ImageView& reference, const ImageView* distorted,
                            std::size_t count, Result* results) {
  SSIM2_NEED_IMPL();
  if (count > 0 && (!distorted || !results)) {
    return Status(StatusCode::kInvalidArgument, "ComputeBatch: null array");
  }
  SSIM2_GUARD();
  for (std::size_t i = 0; i < count; ++i) {
    SSIM2_RETURN_IF_ERROR(ValidatePair(reference, distorted[i]));
    SSIM2_RETURN_IF_ERROR(impl_->CheckImage(distorted[i]));
  }
  SSIM2_RETURN_IF_ERROR(impl_->SetReference(reference));
  return impl_->ScoreBatch(distorted, count, results);
}

Status Engine::ComputeBatch(const ImageView* distorted, std::size_t count, Result* results) {
  SSIM2_NEED_IMPL();
  if (count > 0 && (!distorted || !results)) {
    return Status(StatusCode::kInvalidArgument, "ComputeBatch: null array");
  }
  SSIM2_GUARD();
  SSIM2_RETURN_IF_ERROR(impl_->CheckAgainstReference(distorted, count));
  return impl_->ScoreBatch(distorted, count, results);
}

Status Engine::ComputeBatchAsync(const ImageView* distorted, std::size_t count,
                                 BatchTicket* ticket) {
  SSIM2_NEED_IMPL();
  if (!ticket || (count > 0 && !distorted)) {
    return Status(StatusCode::kInvalidArgument, "ComputeBatchAsync: null argument");
  }
  if (count > static_cast<std::size_t>(impl_->options.max_batch)) {
    return Status(StatusCode::kInvalidArgument,
                  "ComputeBatchAsync: " + std::to_string(count) + " images, more than max_batch (" +
                      std::to_string(impl_->options.max_batch) + ")");
  }
  SSIM2_GUARD();
  SSIM2_RETURN_IF_ERROR(impl_->CheckAgainstReference(distorted, count));
  return impl_->SubmitBatch(distorted, count, ticket);
}

Status Engine::WaitBatch(BatchTicket ticket, Result* results) {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  return impl_->WaitBatch(ticket, results);
}

Status Engine::ComputeAsync(const ImageView& reference, const ImageView& distorted,
                            Ticket* ticket, ResultCallback callback, void* user_data) {
  SSIM2_NEED_IMPL();
  if (!ticket) return Status(StatusCode::kInvalidArgument, "ticket is null");
  SSIM2_GUARD();
  return impl_->Enqueue(&reference, distorted, ticket, callback, user_data);
}

Status Engine::ComputeAsync(const ImageView& distorted, Ticket* ticket, ResultCallback callback,
                            void* user_data) {
  SSIM2_NEED_IMPL();
  if (!ticket) return Status(StatusCode::kInvalidArgument, "ticket is null");
  SSIM2_GUARD();
  return impl_->Enqueue(nullptr, distorted, ticket, callback, user_data);
}

Status Engine::Query(Ticket ticket, bool* done, Result* result) {
  SSIM2_NEED_IMPL();
  if (!done) return Status(StatusCode::kInvalidArgument, "done is null");
  SSIM2_GUARD();
  return impl_->res->tickets.Query(ticket, done, result);
}

Status Engine::Wait(Ticket ticket, Result* result) {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  return impl_->res->tickets.Wait(ticket, result);
}

Status Engine::Synchronize() {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(impl_->stream()));
  for (const auto& lane : impl_->lanes) SSIM2_CUDA_CHECK(cudaStreamSynchronize(lane->stream()));
  if (impl_->second) SSIM2_CUDA_CHECK(cudaStreamSynchronize(impl_->second->stream()));
  SSIM2_CUDA_CHECK(cudaGetLastError());
  return Status::Ok();
}

Status Engine::DebugDownload(DebugPlane plane, int scale, int channel, float* host,
                             std::size_t stride) {
  SSIM2_NEED_IMPL();
  const Layout& l = impl_->layout;
  if (scale < 0 || scale >= l.plan.num_scales || channel < 0 || channel > 2 || !host) {
    return Status(StatusCode::kInvalidArgument, "DebugDownload: bad scale/channel/host");
  }
  const ScaleGeom& g = l.geom[scale];
  // The reference's planes are in the cache once one is cached (a pyramid,
  // not an alpha reference's samples).
  const bool cached = impl_->has_reference && !impl_->reference_alpha;
  const char* const cache_base = impl_->cache_base[impl_->slot];
  const char* base = impl_->base();
  std::size_t off = kNoPlane;
  switch (plane) {
    case DebugPlane::kXybRef:
      if (cached) base = cache_base;
      off = cached ? l.cache.xyb[scale] : l.xyb[0][scale];
      break;
    case DebugPlane::kXybDist: off = l.xyb[1][scale]; break;
    case DebugPlane::kLinearRef: off = l.lin[0][scale]; break;
    case DebugPlane::kLinearDist: off = l.lin[1][scale]; break;
    case DebugPlane::kMu1:
    case DebugPlane::kSigma11:
      if (!cached) return Status(StatusCode::kInvalidArgument, "no reference cached");
      base = cache_base;
      off = (plane == DebugPlane::kMu1 ? l.cache.mu1 : l.cache.s11)[scale][channel];
      if (off == kNoPlane) {
        return Status(StatusCode::kInvalidArgument, "the plan needs no such plane");
      }
      off -= channel * g.plane_bytes;  // one plane per (scale, channel)
      break;
  }
  if ((plane == DebugPlane::kLinearRef || plane == DebugPlane::kLinearDist) &&
      (scale == 0 || !l.options.keep_linear)) {
    return Status(StatusCode::kInvalidArgument,
                  "linear RGB is kept only for scales >= 1 with keep_linear_planes");
  }
  if (off == kNoPlane) {
    return Status(StatusCode::kInvalidArgument, "DebugDownload: no such plane (yet)");
  }
  SSIM2_GUARD();
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(impl_->stream()));
  SSIM2_CUDA_CHECK(cudaMemcpy2D(host, stride * sizeof(float),
                                base + off + channel * g.plane_bytes,
                                g.pitch * sizeof(float), g.width * sizeof(float), g.height,
                                cudaMemcpyDeviceToHost));
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
