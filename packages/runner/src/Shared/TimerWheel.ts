/**
 * One timer service per runner for the deadlines of live calls: a call's ring timeout, maximum
 * duration, reservation extension and funds deadline, the simulated carrier's scripted line events,
 * and the residency touch of a call that must stay in memory. A held call used to keep a sleeping
 * fiber per timer (about 4 KB each); here it keeps an entry in a min-heap, and one fiber sleeps until
 * the earliest deadline of them all. A timer replaced or cancelled leaves the heap at once, and with
 * it what it would have run: a call whose entity stopped keeps nothing here but what wakes it.
 *
 * A timer is named by its owner (a session's id, a carrier's call id) and a kind; arming a name that
 * is armed replaces it, cancelling one that fired or was never armed does nothing. A timer whose
 * deadline has passed fires at once. What a timer runs is forked (in the scope given when it was
 * armed, or the wheel's): it may arm or cancel timers, its own included, and a slow one delays no
 * other. Deadlines are epoch milliseconds on Effect's `Clock`, so `TestClock` moves the wheel.
 *
 * Timers live in the process: a runner that dies loses them, and whoever takes its calls over arms
 * them again from the stored state (see `LiveCallLive`'s `resume`).
 */
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import type * as Scope from "effect/Scope"

interface Entry {
  readonly owner: string
  readonly kind: string
  readonly deadline: number
  /** Order of arming: of two timers due at the same moment, the one armed first fires first. */
  readonly seq: number
  readonly fire: Effect.Effect<void>
  readonly scope: Scope.Scope | undefined
  /** Where the entry sits in the heap (-1 once out of it): a replaced or cancelled one is taken out at once. */
  index: number
}

const before = (a: Entry, b: Entry) => a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq)

/**
 * A binary min-heap of entries by (deadline, seq), each knowing its place: an entry replaced or
 * cancelled leaves the heap at once, with what it would have run (a held call's closures, the scope
 * of an entity that stopped), instead of staying until its deadline surfaces it.
 */
class Heap {
  private items: Array<Entry> = []
  get size() {
    return this.items.length
  }
  peek(): Entry | undefined {
    return this.items[0]
  }
  push(entry: Entry) {
    entry.index = this.items.length
    this.items.push(entry)
    this.up(entry.index)
  }
  /** Takes `entry` out wherever it sits (nothing when it is not in the heap). */
  remove(entry: Entry) {
    const items = this.items
    const i = entry.index
    if (i < 0 || items[i] !== entry) return
    entry.index = -1
    const last = items.pop()!
    if (i === items.length) return
    items[i] = last
    last.index = i
    this.up(i)
    this.down(last.index)
  }
  private swap(i: number, j: number) {
    const items = this.items
    const a = items[i]!
    const b = items[j]!
    items[i] = b
    items[j] = a
    b.index = i
    a.index = j
  }
  private up(i: number) {
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(this.items[i]!, this.items[parent]!)) break
      this.swap(i, parent)
      i = parent
    }
  }
  private down(i: number) {
    const items = this.items
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let least = i
      if (l < items.length && before(items[l]!, items[least]!)) least = l
      if (r < items.length && before(items[r]!, items[least]!)) least = r
      if (least === i) return
      this.swap(i, least)
      i = least
    }
  }
}

export class TimerWheel extends Effect.Service<TimerWheel>()("Calls/TimerWheel", {
  scoped: Effect.gen(function*() {
    const wheelScope = yield* Effect.scope
    const clock = yield* Effect.clock
    const heap = new Heap()
    /** The armed timers by owner, then kind: exactly the entries in the heap. */
    const armed = new Map<string, Map<string, Entry>>()
    let seq = 0
    /** The deadline the sleeping fiber waits for, when one sleeps. */
    let wakeAt: number | undefined
    const sleeper = yield* FiberHandle.make<void, never>()

    /** Disarms `entry`: out of the heap and of its owner's names. */
    const remove = (entry: Entry) => {
      heap.remove(entry)
      const kinds = armed.get(entry.owner)
      if (kinds === undefined || kinds.get(entry.kind) !== entry) return
      kinds.delete(entry.kind)
      if (kinds.size === 0) armed.delete(entry.owner)
    }

    const earliest = (): Entry | undefined => heap.peek()

    /** Forks what `entry` runs (the entry itself is not kept: it is out of the heap by now). */
    const fireOf = ({ fire, kind, owner, scope }: Entry) =>
      Effect.forkIn(
        fire.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`the ${kind} timer of ${owner} failed`, cause)),
          // interruptible again: a fiber forked here would inherit the loop's mask
          Effect.interruptible
        ),
        scope ?? wheelScope
      )

    /**
     * One turn of the sleeping fiber: fires the earliest entry when it is due, else sleeps until it
     * is; answers whether to go on. The sleep is told a number only: an entry replaced or cancelled
     * while the fiber sleeps for it is not kept alive by the sleeping fiber.
     */
    const turn = (restore: <A>(effect: Effect.Effect<A>) => Effect.Effect<A>): Effect.Effect<boolean> =>
      Effect.suspend(() => {
        const next = earliest()
        if (next === undefined) {
          wakeAt = undefined
          return Effect.succeed(false)
        }
        wakeAt = next.deadline
        // read synchronously with the pick: no other fiber takes the same entry in between
        const now = clock.unsafeCurrentTimeMillis()
        if (next.deadline > now) return Effect.as(restore(Effect.sleep(next.deadline - now)), true)
        remove(next)
        return Effect.as(fireOf(next), true)
      })

    /** Fires what is due, then sleeps until the next deadline; interruptible only while it sleeps. */
    const loop: Effect.Effect<void> = Effect.uninterruptibleMask((restore) =>
      Effect.asVoid(Effect.iterate(true, { while: (more) => more, body: () => turn(restore) }))
    )

    /** Makes the sleeping fiber wake by the earliest deadline (or stop when none is armed). */
    const reschedule = Effect.suspend(() => {
      const next = earliest()
      if (next === undefined) {
        wakeAt = undefined
        return FiberHandle.clear(sleeper)
      }
      // a sleeper waking before the earliest deadline finds nothing due and sleeps again: it is
      // restarted only for an earlier deadline, so re-arming a call's timer later costs no fiber
      if (wakeAt !== undefined && wakeAt <= next.deadline) return Effect.void
      wakeAt = next.deadline
      return Effect.asVoid(FiberHandle.run(sleeper, loop))
    })

    return {
      /**
       * Arms `owner`'s `kind` timer at `deadline` (epoch ms; now when it has passed), replacing the
       * one armed under that name. `fire` is forked in `scope` (else the wheel's) when it is due.
       */
      arm: (owner: string, kind: string, deadline: number, fire: Effect.Effect<void>, scope?: Scope.Scope) =>
        Effect.suspend(() => {
          const entry: Entry = { owner, kind, deadline, seq: seq++, fire, scope, index: -1 }
          let kinds = armed.get(owner)
          if (kinds === undefined) {
            kinds = new Map()
            armed.set(owner, kinds)
          }
          const replaced = kinds.get(kind)
          if (replaced !== undefined) heap.remove(replaced)
          kinds.set(kind, entry)
          heap.push(entry)
          return reschedule
        }),
      /** Cancels `owner`'s `kind` timer, if armed. */
      cancel: (owner: string, kind: string) =>
        Effect.suspend(() => {
          const entry = armed.get(owner)?.get(kind)
          if (entry === undefined) return Effect.void
          remove(entry)
          return reschedule
        }),
      /**
       * Cancels every timer of `owner`, but those of the kinds in `keep` (a call's entity that stops
       * while its call rings keeps the entry that wakes it at its ring deadline).
       */
      cancelAll: (owner: string, keep?: ReadonlyArray<string>) =>
        Effect.suspend(() => {
          const kinds = armed.get(owner)
          if (kinds === undefined) return Effect.void
          for (const [kind, entry] of kinds) {
            if (keep?.includes(kind)) continue
            heap.remove(entry)
            kinds.delete(kind)
          }
          if (kinds.size === 0) armed.delete(owner)
          return reschedule
        }),
      /** The deadline of `owner`'s `kind` timer, when armed. */
      deadlineOf: (owner: string, kind: string): number | undefined => armed.get(owner)?.get(kind)?.deadline,
      /** How many timers are armed (every one an entry of the heap: none is kept once replaced or cancelled). */
      size: () => heap.size,
      /** The fiber sleeping until the earliest deadline: none while no timer is armed. */
      sleeper: () => FiberHandle.unsafeGet(sleeper)
    } as const
  })
}) {}
