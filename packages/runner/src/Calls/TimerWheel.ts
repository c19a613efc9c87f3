/**
 * One timer service per runner for the deadlines of live calls: a call's ring timeout, maximum
 * duration, reservation extension and funds deadline, the simulated carrier's scripted line events,
 * and the residency touch of a call that must stay in memory. A held call used to keep a sleeping
 * fiber per timer (about 4 KB each); here it keeps an entry in a min-heap, and one fiber sleeps until
 * the earliest deadline of them all.
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
}

const before = (a: Entry, b: Entry) => a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq)

/** A binary min-heap of entries by (deadline, seq). Entries replaced or cancelled stay until they surface. */
class Heap {
  items: Array<Entry> = []
  get size() {
    return this.items.length
  }
  peek(): Entry | undefined {
    return this.items[0]
  }
  push(entry: Entry) {
    const items = this.items
    items.push(entry)
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(items[i]!, items[parent]!)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }
  pop(): Entry | undefined {
    const items = this.items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let least = i
        if (l < items.length && before(items[l]!, items[least]!)) least = l
        if (r < items.length && before(items[r]!, items[least]!)) least = r
        if (least === i) break
        ;[items[i], items[least]] = [items[least]!, items[i]!]
        i = least
      }
    }
    return top
  }
  rebuild(entries: Iterable<Entry>) {
    this.items = []
    for (const entry of entries) this.push(entry)
  }
}

export class TimerWheel extends Effect.Service<TimerWheel>()("Calls/TimerWheel", {
  scoped: Effect.gen(function*() {
    const wheelScope = yield* Effect.scope
    const clock = yield* Effect.clock
    const heap = new Heap()
    /** The armed timers by owner, then kind: an entry in the heap fires only while it is the one here. */
    const armed = new Map<string, Map<string, Entry>>()
    let count = 0
    let seq = 0
    /** The deadline the sleeping fiber waits for, when one sleeps. */
    let wakeAt: number | undefined
    const sleeper = yield* FiberHandle.make<void, never>()

    const isArmed = (entry: Entry) => armed.get(entry.owner)?.get(entry.kind) === entry

    const remove = (entry: Entry) => {
      const kinds = armed.get(entry.owner)
      if (kinds === undefined || kinds.get(entry.kind) !== entry) return
      kinds.delete(entry.kind)
      if (kinds.size === 0) armed.delete(entry.owner)
      count--
    }

    /** The earliest armed entry, dropping the replaced and cancelled ones above it. */
    const earliest = (): Entry | undefined => {
      for (;;) {
        const top = heap.peek()
        if (top === undefined || isArmed(top)) return top
        heap.pop()
      }
    }

    /** Fires what is due, then sleeps until the next deadline; interruptible only while it sleeps. */
    const loop: Effect.Effect<void> = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        for (;;) {
          const next = earliest()
          if (next === undefined) {
            wakeAt = undefined
            return
          }
          wakeAt = next.deadline
          // read synchronously with the pick: no other fiber takes the same entry in between
          const now = clock.unsafeCurrentTimeMillis()
          if (next.deadline > now) {
            yield* restore(Effect.sleep(next.deadline - now))
            continue
          }
          heap.pop()
          remove(next)
          // interruptible again: a fiber forked here would inherit the loop's mask
          yield* Effect.forkIn(
            next.fire.pipe(
              Effect.catchAllCause((cause) => Effect.logWarning(`the ${next.kind} timer of ${next.owner} failed`, cause)),
              Effect.interruptible
            ),
            next.scope ?? wheelScope
          )
        }
      })
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

    /** The heap keeps replaced entries until their deadline: rebuilt when they outnumber the armed ones. */
    const compact = () => {
      if (heap.size > 64 && heap.size > 4 * count) {
        heap.rebuild([...armed.values()].flatMap((kinds) => [...kinds.values()]))
      }
    }

    return {
      /**
       * Arms `owner`'s `kind` timer at `deadline` (epoch ms; now when it has passed), replacing the
       * one armed under that name. `fire` is forked in `scope` (else the wheel's) when it is due.
       */
      arm: (owner: string, kind: string, deadline: number, fire: Effect.Effect<void>, scope?: Scope.Scope) =>
        Effect.suspend(() => {
          const entry: Entry = { owner, kind, deadline, seq: seq++, fire, scope }
          let kinds = armed.get(owner)
          if (kinds === undefined) {
            kinds = new Map()
            armed.set(owner, kinds)
          }
          if (!kinds.has(kind)) count++
          kinds.set(kind, entry)
          heap.push(entry)
          compact()
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
      /** Cancels every timer of `owner`. */
      cancelAll: (owner: string) =>
        Effect.suspend(() => {
          const kinds = armed.get(owner)
          if (kinds === undefined) return Effect.void
          count -= kinds.size
          armed.delete(owner)
          return reschedule
        }),
      /** The deadline of `owner`'s `kind` timer, when armed. */
      deadlineOf: (owner: string, kind: string): number | undefined => armed.get(owner)?.get(kind)?.deadline,
      /** How many timers are armed. */
      size: () => count,
      /** The fiber sleeping until the earliest deadline: none while no timer is armed. */
      sleeper: () => FiberHandle.unsafeGet(sleeper)
    } as const
  })
}) {}
