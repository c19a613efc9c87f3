/**
 * Paces dials per voice number: carriers limit how many calls a number may start per second
 * (commonly one, `VOICE_NUMBER_CPS`). Each dial takes the next free slot of its number and waits for
 * it on Effect's `Clock` (so `TestClock` drives it). The slots live in PostgreSQL
 * (`voice_number_pace`), taken and moved on in one statement, so campaigns sharing a number on
 * different runners share its rate instead of each getting all of it.
 *
 * A campaign's pass takes its slots a second's worth at a time (`run`): one statement for up to
 * `VOICE_NUMBER_CPS` dials, never more than the pass plans. Slots a pass does not use (it stopped:
 * no funds, the window closed) are lost, at most a second of the number's time.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Rows from "../Sql/Rows.js"

/** The first slot taken, in epoch ms (a `bigint` expression: a number, or its text when the driver leaves it so). */
const SlotRow = Schema.Struct({ at: Rows.NumericInt })

/** Slots taken ahead for a run of dials: `next` waits for the next one (taking more when they run out). */
export interface PacedRun {
  readonly next: Effect.Effect<void>
}

export class DialPacer extends Context.Tag("Campaigns/DialPacer")<DialPacer, {
  /** Waits for the number's next slot and takes it. */
  readonly slot: (voiceNumberId: string) => Effect.Effect<void>
  /** A run of up to `planned` dials on the number, its slots taken a second's worth per statement. */
  readonly run: (voiceNumberId: string, planned: number) => Effect.Effect<PacedRun>
  /** Dials a number may start in a second: a campaign's pass claims at most this many at once. */
  readonly perSecond: number
}>() {
  static readonly layer = (callsPerSecondPerNumber: number) =>
    Layer.effect(
      DialPacer,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const spacing = Math.max(1, Math.round(1000 / callsPerSecondPerNumber))
        const perStatement = Math.max(1, Math.floor(1000 / spacing))

        /** Takes `n` consecutive slots: the first is the later of now and the number's next free one. */
        const take = (voiceNumberId: string, n: number) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const span = n * spacing
            const { at: first } = yield* Rows.single(
              SlotRow,
              sql`
              INSERT INTO voice_number_pace AS p (voice_number_id, next_at) VALUES (${voiceNumberId}, ${now + span})
              ON CONFLICT (voice_number_id) DO UPDATE SET next_at = GREATEST(p.next_at, ${now}) + ${span}
              RETURNING p.next_at - ${span} AS at
            `
            )
            return Array.from({ length: n }, (_, i) => first + i * spacing)
          }).pipe(Effect.orDie)

        const waitUntil = (at: number) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => at > now ? Effect.sleep(at - now) : Effect.void)

        const run = (voiceNumberId: string, planned: number) =>
          Effect.sync((): PacedRun => {
            let left = Math.max(1, planned)
            let slots: Array<number> = []
            return {
              next: Effect.suspend(() => {
                if (slots.length > 0) return waitUntil(slots.shift()!)
                const n = Math.min(left, perStatement)
                left = Math.max(1, left - n)
                return Effect.flatMap(take(voiceNumberId, n), (taken) => {
                  slots = taken.slice(1)
                  return waitUntil(taken[0]!)
                })
              })
            }
          })

        return {
          slot: (voiceNumberId) => Effect.flatMap(take(voiceNumberId, 1), ([at]) => waitUntil(at!)),
          run,
          perSecond: perStatement
        }
      })
    )
}
