/**
 * The caller's keypad: digits pressed on the call (DTMF, from any carrier's media stream) are
 * gathered into one entry, as an IVR gathers them, and the entry is handed on as a turn of the
 * caller's (`[keypad] 1234`). An entry ends at the terminator key (not part of it; pressed alone it
 * is the entry), at `maxDigits`, or when no key follows within `interDigitMs`. Timed on Effect's
 * `Clock`.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import type * as Scope from "effect/Scope"

export interface KeypadSettings {
  /** The key that ends an entry; null: only the timeout or `maxDigits` do. */
  readonly terminator: string | null
  /** An entry ends this long after its last key (ms). */
  readonly interDigitMs: number
  readonly maxDigits: number
}

export const defaultKeypad: KeypadSettings = { terminator: "#", interDigitMs: 3_000, maxDigits: 20 }

export interface KeypadEntry {
  /** The keys pressed, without the terminator (the terminator itself when it was pressed alone). */
  readonly digits: string
  /** How it ended. */
  readonly endedBy: "terminator" | "timeout" | "maxDigits"
  /** When its first key was pressed, and when it ended (ms, Clock). */
  readonly startedAt: number
  readonly at: number
}

/** What the model and the transcript see of an entry. */
export const keypadText = (entry: KeypadEntry): string => `[keypad] ${entry.digits}`

export interface Keypad {
  /** A key the caller pressed. */
  readonly press: (digit: string) => Effect.Effect<void>
  /** The keys gathered so far, not yet an entry. */
  readonly pending: () => string
}

export const makeKeypad = (
  settings: KeypadSettings,
  onEntry: (entry: KeypadEntry) => Effect.Effect<void>
): Effect.Effect<Keypad, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeout = yield* FiberHandle.make<void, never>()
    let digits = ""
    let startedAt = 0

    const complete = (endedBy: KeypadEntry["endedBy"], entryDigits: string) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const entry: KeypadEntry = {
          digits: entryDigits,
          endedBy,
          startedAt: entryDigits === digits ? startedAt : at,
          at
        }
        digits = ""
        yield* onEntry(entry)
      })

    const press = (digit: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* FiberHandle.clear(timeout)
        if (digit === settings.terminator) return yield* complete("terminator", digits === "" ? digit : digits)
        if (digits === "") startedAt = yield* Clock.currentTimeMillis
        digits += digit
        if (digits.length >= settings.maxDigits) return yield* complete("maxDigits", digits)
        yield* FiberHandle.run(
          timeout,
          Effect.sleep(settings.interDigitMs).pipe(Effect.zipRight(Effect.suspend(() => complete("timeout", digits))))
        )
      })

    return { press, pending: () => digits }
  })
