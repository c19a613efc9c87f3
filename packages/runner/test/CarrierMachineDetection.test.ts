/**
 * The carriers' answering-machine verdicts as the platform reads them: Twilio's `AnsweredBy` (with
 * `DetectMessageEnd`) and Telnyx's `call.machine.*` webhooks, every documented value, and what is
 * refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { machineVerdictOf, parseWebhookEvent } from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import { mapAnsweredBy, TWILIO_ANSWERED_BY } from "@voiceagent/runner/Telephony/TwilioCarrier"
import { Either } from "effect"

const telnyx = (eventType: string, payload: Record<string, unknown>) =>
  machineVerdictOf(
    Either.getOrThrow(
      parseWebhookEvent({ data: { id: "e1", event_type: eventType, occurred_at: "2026-11-24T10:00:00Z", payload } })
    )
  )

describe("carrier answering-machine verdicts", () => {
  it(
    "Twilio: a machine_end_* is a machine whose greeting is over; machine_start and fax a machine still greeting; " +
      "anything else is refused",
    () => {
      assert.deepStrictEqual(
        TWILIO_ANSWERED_BY.map((value) => [value, mapAnsweredBy(value)]),
        [
          ["human", { answeredBy: "human", messageEnded: false }],
          ["machine_start", { answeredBy: "machine", messageEnded: false }],
          ["machine_end_beep", { answeredBy: "machine", messageEnded: true }],
          ["machine_end_silence", { answeredBy: "machine", messageEnded: true }],
          ["machine_end_other", { answeredBy: "machine", messageEnded: true }],
          ["fax", { answeredBy: "machine", messageEnded: false }],
          ["unknown", { answeredBy: "unknown", messageEnded: false }]
        ]
      )
      for (const bad of ["", "Human", "machine", "robot"]) assert.isUndefined(mapAnsweredBy(bad), bad)
    }
  )

  it(
    "Telnyx: detection.ended gives who answered, greeting.ended the greeting's end; other events are not verdicts; a " +
      "malformed one is refused",
    () => {
      const id = { call_control_id: "v3:abc" }
      assert.deepStrictEqual(telnyx("call.machine.detection.ended", { ...id, result: "machine" }), {
        answeredBy: "machine",
        messageEnded: false,
        result: "machine",
        callControlId: "v3:abc"
      })
      assert.deepInclude(telnyx("call.machine.detection.ended", { ...id, result: "human" }), { answeredBy: "human" })
      assert.deepInclude(telnyx("call.machine.detection.ended", { ...id, result: "not_sure" }), {
        answeredBy: "unknown"
      })
      assert.deepInclude(telnyx("call.machine.premium.detection.ended", { ...id, result: "human_business" }), {
        answeredBy: "human"
      })
      assert.deepInclude(telnyx("call.machine.premium.detection.ended", { ...id, result: "fax_detected" }), {
        answeredBy: "machine"
      })
      for (const result of ["beep_detected", "ended", "not_sure"]) {
        assert.deepInclude(telnyx("call.machine.greeting.ended", { ...id, result }), {
          answeredBy: "machine",
          messageEnded: true
        })
      }
      assert.deepInclude(telnyx("call.machine.premium.greeting.ended", { ...id, result: "no_beep_detected" }), {
        messageEnded: true
      })
      assert.isNull(telnyx("call.answered", id))
      assert.isNull(telnyx("streaming.started", id))
      assert.strictEqual(
        telnyx("call.machine.detection.ended", { result: "machine" }),
        "call.machine.detection.ended without a call_control_id"
      )
      assert.strictEqual(telnyx("call.machine.detection.ended", id), "call.machine.detection.ended without a result")
      assert.strictEqual(
        telnyx("call.machine.detection.ended", { ...id, result: 7 }),
        "call.machine.detection.ended without a result"
      )
      assert.strictEqual(
        telnyx("call.machine.detection.ended", { ...id, result: "robot" }),
        "call.machine.detection.ended with an unknown result: robot"
      )
    }
  )
})
