/**
 * Paces dials per voice number: carriers limit how many calls a number may start per second
 * (commonly one, `VOICE_NUMBER_CPS`). Each dial takes the next free slot of its number and waits for
 * it on Effect's `Clock` (so `TestClock` drives it). The slots live in PostgreSQL
 * (`voice_number_pace`), taken and moved on in one statement, so campaigns sharing a number on
 * different runners share its rate instead of each getting all of it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export class DialPacer extends Context.Tag("Campaigns/DialPacer")<DialPacer, {
  /** Waits for the number's next slot and takes it. */
  readonly slot: (voiceNumberId: string) => Effect.Effect<void>
}>() {
  static readonly layer = (callsPerSecondPerNumber: number) =>
    Layer.effect(
      DialPacer,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const spacing = Math.max(1, Math.round(1000 / callsPerSecondPerNumber))
        return {
          slot: (voiceNumberId) =>
            Effect.gen(function*() {
              const now = yield* Clock.currentTimeMillis
              // the slot is the later of now and the number's next free one; the next is one spacing on
              const [row] = yield* sql<{ at: string }>`
                INSERT INTO voice_number_pace AS p (voice_number_id, next_at) VALUES (${voiceNumberId}, ${now + spacing})
                ON CONFLICT (voice_number_id) DO UPDATE SET next_at = GREATEST(p.next_at, ${now}) + ${spacing}
                RETURNING p.next_at - ${spacing} AS at
              `
              const at = Number(row!.at)
              if (at > now) yield* Effect.sleep(at - now)
            }).pipe(Effect.orDie)
        }
      })
    )
}
