/**
 * Paces dials per voice number: carriers limit how many calls a number may start per second
 * (commonly one). Each dial takes the next free slot of its number and waits for it on Effect's
 * `Clock` (so `TestClock` drives it). The pace is kept per runner process: campaigns sharing one
 * number on different runners each get the full rate, which `ARCHITECTURE.md` notes as a limit.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export class DialPacer extends Context.Tag("Campaigns/DialPacer")<DialPacer, {
  /** Waits for the number's next slot and takes it. */
  readonly slot: (voiceNumberId: string) => Effect.Effect<void>
}>() {
  static readonly layer = (callsPerSecondPerNumber: number) =>
    Layer.sync(DialPacer, () => {
      const spacing = 1000 / callsPerSecondPerNumber
      const next = new Map<string, number>()
      return {
        slot: (voiceNumberId) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const at = Math.max(now, next.get(voiceNumberId) ?? now)
            next.set(voiceNumberId, at + spacing)
            return at > now ? Effect.sleep(at - now) : Effect.void
          })
      }
    })
}
