/**
 * The testing kit's virtual clock: Effect's `Clock`, with time that moves only when a test moves it,
 * and sleeps kept in a priority queue. It is also a `TestClock` (`adjust`, `setTime`, `sleeps`,
 * `save`), so `TestClock.adjust` and friends work on it where it is installed.
 *
 * Why not Effect's own `TestClock`: an interrupted `TestClock.sleep` stays in its list until its
 * deadline (a `timeout` or a race that finished early leaves one), so a long walk drags thousands of
 * them along, and its public way to move time waits for the test's fibers after every single sleep.
 * Here an interrupted sleep leaves the queue at once, the next deadline is read in O(1), and waking
 * the sleeps due at one instant costs O(k log n).
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as TestClock from "effect/TestClock"

interface Sleeper {
  readonly at: number
  readonly seq: number
  readonly wake: () => void
  /** Position in the heap; -1 once it has left it. */
  index: number
}

const before = (a: Sleeper, b: Sleeper) => a.at < b.at || (a.at === b.at && a.seq < b.seq)

/** A binary min-heap of sleepers by (deadline, arrival), each knowing its position so it can leave early. */
class SleeperQueue {
  private readonly heap: Array<Sleeper> = []

  get size() {
    return this.heap.length
  }

  peek(): Sleeper | undefined {
    return this.heap[0]
  }

  push(s: Sleeper) {
    s.index = this.heap.length
    this.heap.push(s)
    this.up(s.index)
  }

  remove(s: Sleeper) {
    const i = s.index
    if (i < 0) return
    const last = this.heap.pop()!
    s.index = -1
    if (i === this.heap.length) return
    this.heap[i] = last
    last.index = i
    this.down(i)
    this.up(last.index)
  }

  deadlines(): Array<number> {
    return this.heap.map((s) => s.at)
  }

  private swap(i: number, j: number) {
    const a = this.heap[i]!
    const b = this.heap[j]!
    this.heap[i] = b
    this.heap[j] = a
    a.index = j
    b.index = i
  }

  private up(i: number) {
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(this.heap[i]!, this.heap[parent]!)) return
      this.swap(i, parent)
      i = parent
    }
  }

  private down(i: number) {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let least = i
      if (l < this.heap.length && before(this.heap[l]!, this.heap[least]!)) least = l
      if (r < this.heap.length && before(this.heap[r]!, this.heap[least]!)) least = r
      if (least === i) return
      this.swap(i, least)
      i = least
    }
  }
}

export class VirtualClock implements TestClock.TestClock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  private instant: number
  private readonly queue = new SleeperQueue()
  private arrivals = 0
  private changes = 0
  private instantsWoken = 0

  /**
   * @param start the first instant (epoch ms)
   * @param quiet what `adjust` and `setTime` wait for between two instants (the kit: its `settle`)
   */
  constructor(start: number, private readonly quiet: Effect.Effect<void> = Effect.yieldNow()) {
    this.instant = start
  }

  unsafeCurrentTimeMillis(): number {
    return this.instant
  }

  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.instant)
  }

  unsafeCurrentTimeNanos(): bigint {
    return BigInt(Math.round(this.instant * 1_000_000))
  }

  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => this.unsafeCurrentTimeNanos())
  }

  sleep(duration: Duration.DurationInput): Effect.Effect<void> {
    const millis = Duration.toMillis(duration)
    return Effect.async<void>((resume) => {
      if (!(millis > 0)) return resume(Effect.void)
      const sleeper: Sleeper = {
        at: this.instant + millis,
        seq: this.arrivals++,
        wake: () => resume(Effect.void),
        index: -1
      }
      this.queue.push(sleeper)
      this.changes++
      // interrupted (a timeout, a race that ended first): the sleep leaves the queue now
      return Effect.sync(() => {
        if (sleeper.index >= 0) {
          this.queue.remove(sleeper)
          this.changes++
        }
      })
    })
  }

  /** Pending sleeps. */
  get pending(): number {
    return this.queue.size
  }

  /** The earliest pending deadline, `Infinity` when nothing sleeps. */
  get nextDeadline(): number {
    return this.queue.peek()?.at ?? Infinity
  }

  /** Instants the clock has stopped at to wake sleeps (each `unsafeWakeNext` that woke any): what a walk costs. */
  get stops(): number {
    return this.instantsWoken
  }

  /**
   * Changes every time a sleep starts, ends or is interrupted: equal twice means nothing touched the clock in between.
   */
  get version(): number {
    return this.changes
  }

  /**
   * If the earliest deadline is at or before `limit`, moves to it and wakes every sleep due then (in
   * the order they began), answering how many; otherwise wakes nothing and answers 0.
   */
  unsafeWakeNext(limit: number): number {
    const first = this.queue.peek()
    if (first === undefined || first.at > limit) return 0
    const at = first.at
    if (at > this.instant) this.instant = at
    const due: Array<Sleeper> = []
    for (let s = this.queue.peek(); s !== undefined && s.at <= at; s = this.queue.peek()) {
      this.queue.remove(s)
      due.push(s)
    }
    this.changes++
    this.instantsWoken++
    for (const s of due) s.wake()
    return due.length
  }

  /**
   * Sets the instant without waking anything (a move forward past
   * pending deadlines wakes them at the next `unsafeWakeNext`).
   */
  unsafeSetInstant(instant: number) {
    this.instant = instant
    this.changes++
  }

  /** Walks to `target`: one instant at a time, each woken instant's work given `quiet` to finish. */
  walkTo(target: number): Effect.Effect<void> {
    return Effect.gen(this, function*() {
      for (;;) {
        yield* this.quiet
        if (this.unsafeWakeNext(target) === 0) break
      }
      if (target > this.instant) this.unsafeSetInstant(target)
      yield* this.quiet
    })
  }

  // TestClock

  adjust(duration: Duration.DurationInput): Effect.Effect<void> {
    return Effect.suspend(() => this.walkTo(this.instant + Duration.toMillis(duration)))
  }

  adjustWith(duration: Duration.DurationInput) {
    return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.zipLeft(effect, this.adjust(duration), { concurrent: true })
  }

  /** Restores the instant (not the sleeps: they are the running program's). */
  get save(): Effect.Effect<Effect.Effect<void>> {
    return Effect.sync(() => {
      const saved = this.instant
      return Effect.sync(() => this.unsafeSetInstant(saved))
    })
  }

  setTime(time: number): Effect.Effect<void> {
    return Effect.suspend(() =>
      time >= this.instant ? this.walkTo(time) : Effect.sync(() => this.unsafeSetInstant(time))
    )
  }

  get sleeps(): Effect.Effect<Chunk.Chunk<number>> {
    return Effect.sync(() => Chunk.fromIterable(this.queue.deadlines().sort((a, b) => a - b)))
  }
}

/** The virtual clock the current fiber runs on, if it runs on one. */
export const current: Effect.Effect<VirtualClock | undefined> = Effect.map(
  Effect.clock,
  (clock) => clock instanceof VirtualClock ? clock : undefined
)

/** Whether `clock` is a test clock (Effect's `TestClock` or one of these): one a test moves itself. */
const isTestClock = (clock: Clock.Clock): boolean =>
  clock instanceof VirtualClock || ("adjust" in clock && "setTime" in clock && "sleeps" in clock)

/**
 * Installs a virtual clock as Effect's `Clock` for what is built after it (and for the tests of an
 * `it.layer`), in place of a test clock and starting at its instant. On the real clock (a layer
 * built with `excludeTestServices`, or outside a test) it installs nothing: time stays real.
 */
export const layer = (quiet?: Effect.Effect<void>): Layer.Layer<never> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.clock,
      (clock) =>
        isTestClock(clock) ? Layer.setClock(new VirtualClock(clock.unsafeCurrentTimeMillis(), quiet)) : Layer.empty
    )
  )
