import { assert, describe, it } from "@effect/vitest"
import {
  allowedFrom,
  CampaignCommand,
  type CampaignState,
  type CampaignStatus,
  CampaignStatuses,
  holdsResources,
  InvalidTransition,
  isActive,
  transition
} from "@voiceagent/domain/CampaignMachine"
import * as Either from "effect/Either"

const now = 1_000_000
const future = now + 60_000
const past = now - 60_000

/** One typical stored state per status, each field set so that a lost or overwritten one shows. */
const states: Record<CampaignStatus, CampaignState> = {
  DRAFT: { status: "DRAFT", statusReason: null, scheduledAt: null, startedAt: null, completedAt: null },
  SCHEDULED: { status: "SCHEDULED", statusReason: null, scheduledAt: 2_000_000, startedAt: null, completedAt: null },
  RUNNING: { status: "RUNNING", statusReason: null, scheduledAt: 500_000, startedAt: 600_000, completedAt: null },
  PAUSED: {
    status: "PAUSED",
    statusReason: "INSUFFICIENT_FUNDS",
    scheduledAt: 500_000,
    startedAt: 600_000,
    completedAt: null
  },
  COMPLETED: {
    status: "COMPLETED",
    statusReason: null,
    scheduledAt: 500_000,
    startedAt: 600_000,
    completedAt: 900_000
  },
  FAILED: {
    status: "FAILED",
    statusReason: "AGENT_INACTIVE",
    scheduledAt: 500_000,
    startedAt: 600_000,
    completedAt: null
  }
}

/** Every command variant: each tag, each reason, and the three kinds of schedule time. */
const commands = {
  ScheduleFuture: CampaignCommand.Schedule({ at: future, now }),
  ScheduleNow: CampaignCommand.Schedule({ at: null, now }),
  SchedulePast: CampaignCommand.Schedule({ at: past, now }),
  Start: CampaignCommand.Start({ now }),
  PauseByUser: CampaignCommand.Pause({ reason: "PAUSED_BY_USER" }),
  PauseNoFunds: CampaignCommand.Pause({ reason: "INSUFFICIENT_FUNDS" }),
  Resume: CampaignCommand.Resume(),
  Abort: CampaignCommand.Abort(),
  Complete: CampaignCommand.Complete({ now }),
  FailAgentInactive: CampaignCommand.Fail({ reason: "AGENT_INACTIVE" }),
  FailAgentNotFound: CampaignCommand.Fail({ reason: "AGENT_NOT_FOUND" }),
  FailVoiceNumberRemoved: CampaignCommand.Fail({ reason: "VOICE_NUMBER_REMOVED" }),
  FailContactListNotFound: CampaignCommand.Fail({ reason: "CONTACT_LIST_NOT_FOUND" }),
  Edit: CampaignCommand.Edit(),
  Delete: CampaignCommand.Delete()
} as const
type CommandName = keyof typeof commands

/** `"refused"`, or the fields an accepted command changes (every other field must stay as it was). */
type Expected = "refused" | Partial<CampaignState>
const unchanged: Expected = {}

const refusedAll = (): Record<CommandName, Expected> => ({
  ScheduleFuture: "refused",
  ScheduleNow: "refused",
  SchedulePast: "refused",
  Start: "refused",
  PauseByUser: "refused",
  PauseNoFunds: "refused",
  Resume: "refused",
  Abort: "refused",
  Complete: "refused",
  FailAgentInactive: "refused",
  FailAgentNotFound: "refused",
  FailVoiceNumberRemoved: "refused",
  FailContactListNotFound: "refused",
  Edit: "refused",
  Delete: "refused"
})

/** Every status × every command, written out: the machine's whole contract. */
const table: Record<CampaignStatus, Record<CommandName, Expected>> = {
  DRAFT: {
    ...refusedAll(),
    ScheduleFuture: { status: "SCHEDULED", statusReason: null, scheduledAt: future },
    ScheduleNow: { status: "SCHEDULED", statusReason: null, scheduledAt: now },
    SchedulePast: { status: "SCHEDULED", statusReason: null, scheduledAt: now },
    Edit: unchanged,
    Delete: unchanged
  },
  SCHEDULED: {
    ...refusedAll(),
    ScheduleFuture: { status: "SCHEDULED", statusReason: null, scheduledAt: future },
    ScheduleNow: { status: "SCHEDULED", statusReason: null, scheduledAt: now },
    SchedulePast: { status: "SCHEDULED", statusReason: null, scheduledAt: now },
    Start: { status: "RUNNING", statusReason: null, startedAt: now },
    Abort: { status: "FAILED", statusReason: "ABORTED" },
    FailAgentInactive: { status: "FAILED", statusReason: "AGENT_INACTIVE" },
    FailAgentNotFound: { status: "FAILED", statusReason: "AGENT_NOT_FOUND" },
    FailVoiceNumberRemoved: { status: "FAILED", statusReason: "VOICE_NUMBER_REMOVED" },
    FailContactListNotFound: { status: "FAILED", statusReason: "CONTACT_LIST_NOT_FOUND" }
  },
  RUNNING: {
    ...refusedAll(),
    PauseByUser: { status: "PAUSED", statusReason: "PAUSED_BY_USER" },
    PauseNoFunds: { status: "PAUSED", statusReason: "INSUFFICIENT_FUNDS" },
    Abort: { status: "FAILED", statusReason: "ABORTED" },
    Complete: { status: "COMPLETED", statusReason: null, completedAt: now },
    FailAgentInactive: { status: "FAILED", statusReason: "AGENT_INACTIVE" },
    FailAgentNotFound: { status: "FAILED", statusReason: "AGENT_NOT_FOUND" },
    FailVoiceNumberRemoved: { status: "FAILED", statusReason: "VOICE_NUMBER_REMOVED" },
    FailContactListNotFound: { status: "FAILED", statusReason: "CONTACT_LIST_NOT_FOUND" }
  },
  PAUSED: {
    ...refusedAll(),
    Resume: { status: "RUNNING", statusReason: null },
    Abort: { status: "FAILED", statusReason: "ABORTED" },
    FailAgentInactive: { status: "FAILED", statusReason: "AGENT_INACTIVE" },
    FailAgentNotFound: { status: "FAILED", statusReason: "AGENT_NOT_FOUND" },
    FailVoiceNumberRemoved: { status: "FAILED", statusReason: "VOICE_NUMBER_REMOVED" },
    FailContactListNotFound: { status: "FAILED", statusReason: "CONTACT_LIST_NOT_FOUND" }
  },
  COMPLETED: { ...refusedAll(), Delete: unchanged },
  FAILED: { ...refusedAll(), Delete: unchanged }
}

/** The states each tag is accepted in, written out (not read from the module). */
const expectedAllowedFrom: Record<CampaignCommand["_tag"], ReadonlyArray<CampaignStatus>> = {
  Schedule: ["DRAFT", "SCHEDULED"],
  Start: ["SCHEDULED"],
  Pause: ["RUNNING"],
  Resume: ["PAUSED"],
  Abort: ["SCHEDULED", "RUNNING", "PAUSED"],
  Complete: ["RUNNING"],
  Fail: ["SCHEDULED", "RUNNING", "PAUSED"],
  Edit: ["DRAFT"],
  Delete: ["DRAFT", "COMPLETED", "FAILED"]
}

const expectedVerbs: Record<CampaignCommand["_tag"], string> = {
  Schedule: "be scheduled",
  Start: "start dialing",
  Pause: "be paused",
  Resume: "be resumed",
  Abort: "be aborted",
  Complete: "complete",
  Fail: "fail",
  Edit: "be edited",
  Delete: "be deleted; abort it first"
}

const assertRefused = (
  result: Either.Either<CampaignState, InvalidTransition>,
  from: CampaignStatus,
  tag: CampaignCommand["_tag"]
) => {
  if (Either.isRight(result)) return assert.fail(`${from} + ${tag} was accepted: ${JSON.stringify(result.right)}`)
  const error = result.left
  assert.instanceOf(error, InvalidTransition)
  assert.strictEqual(error._tag, "InvalidTransition")
  assert.strictEqual(error.from, from)
  assert.strictEqual(error.command, tag)
  assert.deepStrictEqual(error.allowedFrom, expectedAllowedFrom[tag])
  assert.include(error.message, `in ${from} `)
  assert.strictEqual(
    error.message,
    `A campaign in ${from} cannot ${expectedVerbs[tag]}; allowed from ${expectedAllowedFrom[tag].join(", ")}`
  )
}

const accepted = (result: Either.Either<CampaignState, InvalidTransition>): CampaignState => {
  if (Either.isLeft(result)) return assert.fail(`refused: ${result.left.message}`)
  return result.right
}

describe("campaign state machine", () => {
  it("has the six statuses, and the accepted states written out above", () => {
    assert.deepStrictEqual(CampaignStatuses, ["DRAFT", "SCHEDULED", "RUNNING", "PAUSED", "COMPLETED", "FAILED"])
    assert.deepStrictEqual(allowedFrom, expectedAllowedFrom)
    assert.deepStrictEqual(Object.keys(table), [...CampaignStatuses])
  })

  it("the table agrees with itself: every variant of a tag is accepted in exactly the same states", () => {
    for (const [name, command] of Object.entries(commands) as Array<[CommandName, CampaignCommand]>) {
      const acceptedIn = CampaignStatuses.filter((status) => table[status][name] !== "refused")
      assert.deepStrictEqual(acceptedIn, expectedAllowedFrom[command._tag], name)
    }
  })

  for (const status of CampaignStatuses) {
    for (const [name, expected] of Object.entries(table[status]) as Array<[CommandName, Expected]>) {
      it(`${status} + ${name}`, () => {
        const before = states[status]
        const command = commands[name]
        const result = transition(before, command)
        if (expected === "refused") {
          assertRefused(result, status, command._tag)
        } else {
          assert.deepStrictEqual(accepted(result), { ...before, ...expected })
        }
        // The input is never mutated.
        assert.deepStrictEqual(before, states[status])
      })
    }
  }

  describe("refusals", () => {
    it("deleting a campaign that holds resources says to abort it first", () => {
      for (const status of ["SCHEDULED", "RUNNING", "PAUSED"] as const) {
        const result = transition(states[status], CampaignCommand.Delete())
        assertRefused(result, status, "Delete")
        if (Either.isLeft(result)) {
          assert.include(result.left.message, status)
          assert.include(result.left.message, "abort it first")
        }
      }
    })

    it("no other refusal tells to abort first", () => {
      for (const status of CampaignStatuses) {
        for (const command of Object.values(commands)) {
          const result = transition(states[status], command)
          if (Either.isLeft(result) && command._tag !== "Delete") {
            assert.notInclude(result.left.message, "abort it first")
          }
        }
      }
    })
  })

  describe("schedule", () => {
    it("uses the requested time when it is in the future, and now when it is null or past", () => {
      const draft = states.DRAFT
      assert.strictEqual(
        accepted(transition(draft, CampaignCommand.Schedule({ at: now + 1, now }))).scheduledAt,
        now + 1
      )
      assert.strictEqual(accepted(transition(draft, CampaignCommand.Schedule({ at: now, now }))).scheduledAt, now)
      assert.strictEqual(accepted(transition(draft, CampaignCommand.Schedule({ at: now - 1, now }))).scheduledAt, now)
      assert.strictEqual(accepted(transition(draft, CampaignCommand.Schedule({ at: 0, now }))).scheduledAt, now)
      assert.strictEqual(accepted(transition(draft, CampaignCommand.Schedule({ at: null, now }))).scheduledAt, now)
    })

    it("rescheduling replaces the time, earlier or later", () => {
      const first = accepted(transition(states.DRAFT, CampaignCommand.Schedule({ at: 5_000_000, now })))
      const later = accepted(transition(first, CampaignCommand.Schedule({ at: 9_000_000, now: now + 1 })))
      assert.deepStrictEqual(later, { ...states.DRAFT, status: "SCHEDULED", scheduledAt: 9_000_000 })
      const sooner = accepted(transition(later, CampaignCommand.Schedule({ at: 3_000_000, now: now + 2 })))
      assert.deepStrictEqual(sooner, { ...states.DRAFT, status: "SCHEDULED", scheduledAt: 3_000_000 })
      const immediately = accepted(transition(sooner, CampaignCommand.Schedule({ at: null, now: now + 3 })))
      assert.deepStrictEqual(immediately, { ...states.DRAFT, status: "SCHEDULED", scheduledAt: now + 3 })
    })

    it("clears a stale status reason", () => {
      for (const status of ["DRAFT", "SCHEDULED"] as const) {
        const stale: CampaignState = { ...states[status], statusReason: "PAUSED_BY_USER" }
        const next = accepted(transition(stale, CampaignCommand.Schedule({ at: future, now })))
        assert.deepStrictEqual(next, { ...stale, status: "SCHEDULED", statusReason: null, scheduledAt: future })
      }
    })
  })

  describe("start", () => {
    it("sets startedAt the first time only", () => {
      const first = accepted(transition(states.SCHEDULED, CampaignCommand.Start({ now })))
      assert.deepStrictEqual(first, { ...states.SCHEDULED, status: "RUNNING", startedAt: now })
      const startedBefore: CampaignState = { ...states.SCHEDULED, startedAt: 123 }
      const again = accepted(transition(startedBefore, CampaignCommand.Start({ now: now + 5 })))
      assert.deepStrictEqual(again, { ...startedBefore, status: "RUNNING", startedAt: 123 })
    })

    it("pausing and resuming keep the first start time", () => {
      const running = accepted(transition(states.SCHEDULED, CampaignCommand.Start({ now })))
      const paused = accepted(transition(running, CampaignCommand.Pause({ reason: "PAUSED_BY_USER" })))
      const resumed = accepted(transition(paused, CampaignCommand.Resume()))
      assert.deepStrictEqual(resumed, running)
      const completed = accepted(transition(resumed, CampaignCommand.Complete({ now: now + 10 })))
      assert.deepStrictEqual(completed, { ...running, status: "COMPLETED", completedAt: now + 10 })
    })

    it("clears a stale status reason", () => {
      const stale: CampaignState = { ...states.SCHEDULED, statusReason: "INSUFFICIENT_FUNDS" }
      assert.isNull(accepted(transition(stale, CampaignCommand.Start({ now }))).statusReason)
    })
  })

  it("resume clears either pause reason", () => {
    for (const reason of ["PAUSED_BY_USER", "INSUFFICIENT_FUNDS"] as const) {
      const paused = accepted(transition(states.RUNNING, CampaignCommand.Pause({ reason })))
      assert.deepStrictEqual(paused, { ...states.RUNNING, status: "PAUSED", statusReason: reason })
      assert.deepStrictEqual(accepted(transition(paused, CampaignCommand.Resume())), states.RUNNING)
    }
  })

  it("edit and delete leave the state as it was", () => {
    for (
      const [status, command] of [
        ["DRAFT", CampaignCommand.Edit()],
        ["DRAFT", CampaignCommand.Delete()],
        ["COMPLETED", CampaignCommand.Delete()],
        ["FAILED", CampaignCommand.Delete()]
      ] as const
    ) {
      const before = states[status]
      assert.deepStrictEqual(accepted(transition(before, command)), before)
    }
  })

  it("isActive: only SCHEDULED (timer) and RUNNING (dial loop)", () => {
    const expected: Record<CampaignStatus, boolean> = {
      DRAFT: false,
      SCHEDULED: true,
      RUNNING: true,
      PAUSED: false,
      COMPLETED: false,
      FAILED: false
    }
    for (const status of CampaignStatuses) assert.strictEqual(isActive(status), expected[status], status)
  })

  it("holdsResources: SCHEDULED, RUNNING and PAUSED, exactly the states that refuse Delete", () => {
    const expected: Record<CampaignStatus, boolean> = {
      DRAFT: false,
      SCHEDULED: true,
      RUNNING: true,
      PAUSED: true,
      COMPLETED: false,
      FAILED: false
    }
    for (const status of CampaignStatuses) {
      assert.strictEqual(holdsResources(status), expected[status], status)
      assert.strictEqual(
        holdsResources(status),
        Either.isLeft(transition(states[status], CampaignCommand.Delete())),
        status
      )
    }
  })

  it(
    "1,000 pseudo-random commands from DRAFT: always one of the six states, and the end states accept only Delete",
    () => {
      // mulberry32, fixed seed: the same walk on every run.
      let seed = 0x5eed_1234
      const random = () => {
        seed = (seed + 0x6d2b79f5) | 0
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
        return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
      }
      const pick = <A>(as: ReadonlyArray<A>): A => as[Math.floor(random() * as.length)]
      const reasons = ["AGENT_INACTIVE", "AGENT_NOT_FOUND", "VOICE_NUMBER_REMOVED", "CONTACT_LIST_NOT_FOUND"] as const
      const makeCommand = (clock: number): CampaignCommand => {
        const tag = pick(Object.keys(expectedAllowedFrom) as Array<CampaignCommand["_tag"]>)
        switch (tag) {
          case "Schedule":
            return CampaignCommand.Schedule({ at: pick([null, clock - 1_000, clock, clock + 1_000]), now: clock })
          case "Start":
            return CampaignCommand.Start({ now: clock })
          case "Pause":
            return CampaignCommand.Pause({ reason: pick(["PAUSED_BY_USER", "INSUFFICIENT_FUNDS"] as const) })
          case "Resume":
            return CampaignCommand.Resume()
          case "Abort":
            return CampaignCommand.Abort()
          case "Complete":
            return CampaignCommand.Complete({ now: clock })
          case "Fail":
            return CampaignCommand.Fail({ reason: pick(reasons) })
          case "Edit":
            return CampaignCommand.Edit()
          case "Delete":
            return CampaignCommand.Delete()
        }
      }

      const visited = new Set<CampaignStatus>()
      const acceptedTags = new Set<CampaignCommand["_tag"]>()
      let campaigns = 1
      let state = states.DRAFT
      for (let step = 0; step < 1_000; step++) {
        const clock = now + step * 1_000
        const command = makeCommand(clock)
        const result = transition(state, command)
        const shouldAccept = expectedAllowedFrom[command._tag].includes(state.status)
        assert.strictEqual(Either.isRight(result), shouldAccept, `step ${step}: ${state.status} + ${command._tag}`)
        if (Either.isLeft(result)) {
          assertRefused(result, state.status, command._tag)
          continue
        }
        acceptedTags.add(command._tag)
        const next = result.right
        assert.include(CampaignStatuses, next.status, `step ${step}`)
        visited.add(next.status)

        // What the stored row always satisfies.
        assert.strictEqual(
          next.statusReason !== null,
          next.status === "PAUSED" || next.status === "FAILED",
          `step ${step}`
        )
        assert.strictEqual(next.completedAt !== null, next.status === "COMPLETED", `step ${step}`)
        if (next.status !== "DRAFT") assert.isNotNull(next.scheduledAt, `step ${step}`)
        if (next.status === "RUNNING" || next.status === "PAUSED" || next.status === "COMPLETED") {
          assert.isNotNull(next.startedAt, `step ${step}`)
        }

        // An end state is final: nothing but Delete, which changes nothing.
        if (next.status === "COMPLETED" || next.status === "FAILED") {
          for (const probe of Object.values(commands)) {
            const probed = transition(next, probe)
            if (probe._tag === "Delete") {
              assert.deepStrictEqual(accepted(probed), next)
            } else {
              assertRefused(probed, next.status, probe._tag)
            }
          }
        }

        // A deleted campaign is gone: carry on with a new one.
        if (command._tag === "Delete") {
          state = states.DRAFT
          campaigns++
        } else {
          state = next
        }
      }

      // The walk is not vacuous: it went everywhere and used every command.
      assert.deepStrictEqual([...visited].sort(), [...CampaignStatuses].sort())
      assert.deepStrictEqual([...acceptedTags].sort(), Object.keys(expectedAllowedFrom).sort())
      assert.isAbove(campaigns, 10)
    }
  )
})
