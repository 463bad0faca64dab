import Foundation
import SearchIndex

/// Runs an async stage's `execute` from the executor's synchronous pipeline, on the query's
/// own thread: the stage's task prefers a task executor whose jobs this thread runs while it
/// waits, so a stage needs no thread of Swift's shared pool (which a blocked query thread
/// could otherwise exhaust on a small machine) and never runs beside the execution that
/// waits for it.
///
/// Cancellation: while it waits, the thread checks the query's `CancellationFlag` and,
/// when the query runs inside a task, that task's cancellation; either cancels the stage's
/// task, whose `CancellationError` then ends the query as cancelled.
enum AsyncStageRunner {
  /// How often the waiting thread looks at the cancellation flag when no job arrives.
  static let cancellationPoll: TimeInterval = 0.01

  static func run<Stage: SearchStage>(
    cancellation: CancellationFlag, stage: Stage, input: PipelineData, context: any StageContext
  ) throws -> PipelineData {
    let loop = StageRunLoop()
    let handoff = ContextHandoff(context: context)
    let outcome = Outcome()
    let task = Task(executorPreference: loop) {
      do {
        outcome.result = .success(try await stage.execute(input, context: handoff.context))
      } catch {
        outcome.result = .failure(error)
      }
      loop.finish()
    }
    let callerCancelled = { withUnsafeCurrentTask { $0?.isCancelled ?? false } }
    loop.drain { cancellation.isCancelled || callerCancelled() } onCancel: {
      task.cancel()
    }
    guard let result = outcome.result else { throw QueryRuntimeError("custom stage did not finish") }
    return try result.get()
  }
}

/// Hands the execution's context to the stage's task. Sound because the only thread that
/// uses the context otherwise (the query's) is blocked in `StageRunLoop.drain`, running the
/// task's own jobs, until the task has finished: the context is never used concurrently.
private struct ContextHandoff: @unchecked Sendable {
  let context: any StageContext
}

/// A task executor driven by the thread that waits for the task: `enqueue` queues jobs and
/// `drain` runs them on the waiting thread until the task finishes. Jobs that arrive after
/// (an unstructured task the stage left behind) go to a global queue.
private final class StageRunLoop: TaskExecutor, @unchecked Sendable {
  // `jobs` and `finished` are guarded by `condition`; that makes the class Sendable.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var finished = false

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    defer { condition.unlock() }
    if finished {
      // The closure keeps the executor alive while the job runs on it.
      DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
      return
    }
    jobs.append(job)
    condition.signal()
  }

  /// Called by the task as it ends.
  func finish() {
    condition.lock()
    finished = true
    condition.signal()
    condition.unlock()
  }

  /// Runs the task's jobs on this thread until the task finishes; calls `onCancel` once when
  /// `isCancelled` becomes true.
  func drain(isCancelled: () -> Bool, onCancel: () -> Void) {
    var cancelled = false
    while true {
      condition.lock()
      while jobs.isEmpty && !finished {
        if !cancelled && isCancelled() { break }
        _ = condition.wait(until: Date(timeIntervalSinceNow: AsyncStageRunner.cancellationPoll))
      }
      let batch = jobs
      jobs.removeAll()
      let done = finished && batch.isEmpty
      condition.unlock()
      if !cancelled && isCancelled() {
        cancelled = true
        onCancel()
      }
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
      if done { return }
    }
  }
}

/// Carries the stage's result to the waiting thread: written by the task before it calls
/// `StageRunLoop.finish` (under the loop's lock), read after `drain` saw it finished.
private final class Outcome: @unchecked Sendable {
  var result: Result<PipelineData, any Error>?
}
