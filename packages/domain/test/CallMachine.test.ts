import { assert, describe, it } from "@effect/vitest"
import {
  billableSeconds,
  CallEvent,
  type CallState,
  costOf,
  knownUntil,
  talkSeconds,
  transition
} from "@voiceagent/domain/CallMachine"

const at = 1_000_000
const states: Record<CallState["status"], CallState> = {
  QUEUED: { status: "QUEUED" },
  DIALING: { status: "DIALING", dialedAt: 10 },
  RINGING: { status: "RINGING", dialedAt: 10, ringingAt: 20 },
  IN_PROGRESS: { status: "IN_PROGRESS", dialedAt: 10, ringingAt: 20, answeredAt: 30 },
  ENDED: {
    status: "ENDED",
    outcome: "ANSWERED",
    reason: "completed",
    dialedAt: 10,
    ringingAt: 20,
    answeredAt: 30,
    endedAt: 40
  }
}

const events = {
  Dial: CallEvent.Dial({ at }),
  DialFailed: CallEvent.DialFailed({ at }),
  Ringing: CallEvent.Ringing({ at }),
  Answered: CallEvent.Answered({ at }),
  Busy: CallEvent.Busy({ at }),
  NoAnswer: CallEvent.NoAnswer({ at }),
  CarrierFailed: CallEvent.CarrierFailed({ at }),
  Completed: CallEvent.Completed({ at }),
  RingTimeout: CallEvent.RingTimeout({ at }),
  MaxDuration: CallEvent.MaxDuration({ at }),
  FundsExhausted: CallEvent.FundsExhausted({ at }),
  HangupRequested: CallEvent.HangupRequested({ at }),
  AgentHungUp: CallEvent.AgentHungUp({ at }),
  VoicemailDone: CallEvent.VoicemailDone({ at }),
  Transferred: CallEvent.Transferred({ at })
} as const

type Expected =
  | "ignored"
  | { readonly status: Exclude<CallState["status"], "ENDED">; readonly commands: ReadonlyArray<string> }
  | { readonly outcome: string; readonly reason: string; readonly hangUp: boolean }

/** Every state × every event, written out: the machine's whole contract. */
const table: Record<CallState["status"], Record<keyof typeof events, Expected>> = {
  QUEUED: {
    Dial: { status: "DIALING", commands: ["PlaceCall", "ArmRingTimer"] },
    DialFailed: { outcome: "FAILED", reason: "dial_failed", hangUp: false },
    Ringing: "ignored",
    Answered: "ignored",
    Busy: "ignored",
    NoAnswer: "ignored",
    CarrierFailed: "ignored",
    Completed: "ignored",
    RingTimeout: "ignored",
    MaxDuration: "ignored",
    FundsExhausted: { outcome: "FAILED", reason: "funds_exhausted", hangUp: false },
    HangupRequested: { outcome: "CANCELED", reason: "hangup_requested", hangUp: false },
    AgentHungUp: "ignored",
    VoicemailDone: "ignored",
    Transferred: "ignored"
  },
  DIALING: {
    Dial: "ignored",
    DialFailed: { outcome: "FAILED", reason: "dial_failed", hangUp: false },
    Ringing: { status: "RINGING", commands: [] },
    Answered: { status: "IN_PROGRESS", commands: ["ArmMaxDurationTimer"] },
    Busy: { outcome: "BUSY", reason: "busy", hangUp: false },
    NoAnswer: { outcome: "UNANSWERED", reason: "no_answer", hangUp: false },
    CarrierFailed: { outcome: "FAILED", reason: "carrier_failed", hangUp: false },
    Completed: { outcome: "UNANSWERED", reason: "no_answer", hangUp: false },
    RingTimeout: { outcome: "UNANSWERED", reason: "ring_timeout", hangUp: true },
    MaxDuration: "ignored",
    FundsExhausted: { outcome: "CANCELED", reason: "funds_exhausted", hangUp: true },
    HangupRequested: { outcome: "CANCELED", reason: "hangup_requested", hangUp: true },
    AgentHungUp: "ignored",
    VoicemailDone: "ignored",
    Transferred: "ignored"
  },
  RINGING: {
    Dial: "ignored",
    DialFailed: { outcome: "FAILED", reason: "dial_failed", hangUp: false },
    Ringing: "ignored",
    Answered: { status: "IN_PROGRESS", commands: ["ArmMaxDurationTimer"] },
    Busy: { outcome: "BUSY", reason: "busy", hangUp: false },
    NoAnswer: { outcome: "UNANSWERED", reason: "no_answer", hangUp: false },
    CarrierFailed: { outcome: "FAILED", reason: "carrier_failed", hangUp: false },
    Completed: { outcome: "UNANSWERED", reason: "no_answer", hangUp: false },
    RingTimeout: { outcome: "UNANSWERED", reason: "ring_timeout", hangUp: true },
    MaxDuration: "ignored",
    FundsExhausted: { outcome: "CANCELED", reason: "funds_exhausted", hangUp: true },
    HangupRequested: { outcome: "CANCELED", reason: "hangup_requested", hangUp: true },
    AgentHungUp: "ignored",
    VoicemailDone: "ignored",
    Transferred: "ignored"
  },
  IN_PROGRESS: {
    Dial: "ignored",
    DialFailed: "ignored",
    Ringing: "ignored",
    Answered: "ignored",
    Busy: "ignored",
    NoAnswer: "ignored",
    CarrierFailed: { outcome: "ANSWERED", reason: "carrier_failed", hangUp: false },
    Completed: { outcome: "ANSWERED", reason: "completed", hangUp: false },
    RingTimeout: "ignored",
    MaxDuration: { outcome: "ANSWERED", reason: "max_duration", hangUp: true },
    FundsExhausted: { outcome: "ANSWERED", reason: "funds_exhausted", hangUp: true },
    HangupRequested: { outcome: "ANSWERED", reason: "hangup_requested", hangUp: true },
    AgentHungUp: { outcome: "ANSWERED", reason: "agent_hangup", hangUp: true },
    // a machine took the call: unanswered to campaigns and messaging, still billed from the answer
    VoicemailDone: { outcome: "UNANSWERED", reason: "voicemail", hangUp: true },
    // the carrier goes on with the call: it is not hung up
    Transferred: { outcome: "ANSWERED", reason: "transferred", hangUp: false }
  },
  ENDED: Object.fromEntries(Object.keys(events).map((k) => [k, "ignored"])) as Record<keyof typeof events, Expected>
}

describe("call state machine", () => {
  for (
    const [status, row] of Object.entries(table) as Array<[CallState["status"], Record<keyof typeof events, Expected>]>
  ) {
    for (const [name, expected] of Object.entries(row) as Array<[keyof typeof events, Expected]>) {
      it(`${status} + ${name}`, () => {
        const before = states[status]
        const result = transition(before, events[name])
        if (expected === "ignored") {
          assert.isFalse(result.changed)
          assert.strictEqual(result.state, before)
          assert.deepStrictEqual(result.commands, [])
        } else if ("status" in expected) {
          assert.isTrue(result.changed)
          assert.strictEqual(result.state.status, expected.status)
          assert.deepStrictEqual(result.commands.map((c) => c._tag), expected.commands)
        } else {
          assert.isTrue(result.changed)
          assert.strictEqual(result.state.status, "ENDED")
          if (result.state.status !== "ENDED") return
          assert.strictEqual(result.state.outcome, expected.outcome)
          assert.strictEqual(result.state.reason, expected.reason)
          assert.strictEqual(result.state.endedAt, at)
          assert.deepStrictEqual(
            result.commands.map((c) => c._tag),
            expected.hangUp ? ["HangUp", "Finish"] : ["Finish"]
          )
        }
      })
    }
  }

  it("keeps the times it has seen through to the end", () => {
    const ringing = transition(
      transition(states.DIALING, CallEvent.Ringing({ at: 20 })).state,
      CallEvent.Answered({ at: 30 })
    )
    assert.deepStrictEqual(ringing.state, { status: "IN_PROGRESS", dialedAt: 10, ringingAt: 20, answeredAt: 30 })
    const ended = transition(ringing.state, CallEvent.Completed({ at: 50_030 }))
    assert.deepStrictEqual(ended.state, {
      status: "ENDED",
      outcome: "ANSWERED",
      reason: "completed",
      dialedAt: 10,
      ringingAt: 20,
      answeredAt: 30,
      endedAt: 50_030
    })
    assert.strictEqual(talkSeconds(ended.state), 50)
    const skippedRinging = transition(states.DIALING, CallEvent.Answered({ at: 15 }))
    assert.deepInclude(skippedRinging.state, { ringingAt: null, answeredAt: 15 })
  })

  it(
    "takes a carrier's event dated before what the call knows at that moment: its timeline never runs backwards",
    () => {
      // Twilio dates its callbacks to the second: the ring and the answer of a call dialled at .040
      // arrive dated .000
      const dialed = transition(states.QUEUED, CallEvent.Dial({ at: 1_040 })).state
      const ringing = transition(dialed, CallEvent.Ringing({ at: 1_000 })).state
      const answered = transition(ringing, CallEvent.Answered({ at: 1_000 })).state
      assert.deepStrictEqual(answered, { status: "IN_PROGRESS", dialedAt: 1_040, ringingAt: 1_040, answeredAt: 1_040 })
      assert.strictEqual(knownUntil(answered), 1_040)
      const ended = transition(answered, CallEvent.Completed({ at: 1_000 })).state
      assert.deepInclude(ended, { status: "ENDED", endedAt: 1_040 })
      assert.strictEqual(talkSeconds(ended), 0)
    }
  )

  it("a duplicate or late event never changes an ended call", () => {
    const ended = transition(states.IN_PROGRESS, CallEvent.Completed({ at })).state
    for (const event of Object.values(events)) assert.isFalse(transition(ended, event).changed)
  })

  it("bills talk time rounded up to the increment, and rounds cost up to a whole unit", () => {
    assert.strictEqual(billableSeconds(0, 6), 0)
    assert.strictEqual(billableSeconds(1, 6), 6)
    assert.strictEqual(billableSeconds(6, 6), 6)
    assert.strictEqual(billableSeconds(7, 6), 12)
    assert.strictEqual(billableSeconds(61, 60), 120)
    assert.strictEqual(costOf(0, 5), 0)
    assert.strictEqual(costOf(6, 5), 1) // 0.5 → 1
    assert.strictEqual(costOf(60, 5), 5)
    assert.strictEqual(costOf(42, 5), 4) // 3.5 → 4
    assert.strictEqual(costOf(120, 7), 14)
    assert.strictEqual(
      talkSeconds({
        status: "ENDED",
        outcome: "ANSWERED",
        reason: "completed",
        dialedAt: 0,
        ringingAt: null,
        answeredAt: 1_000,
        endedAt: 2_001
      }),
      2
    )
    assert.strictEqual(talkSeconds(states.QUEUED), 0)
  })
})
