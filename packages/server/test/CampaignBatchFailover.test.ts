import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import { type CampaignFailoverReport, type FailoverPoint, runCampaignFailover } from "./CampaignFailoverScenario.js"

// Runners share shards over PostgreSQL only, so this runs on DATABASE_URL, else on the machine's PostgreSQL at
// 127.0.0.1:5432, and is skipped only when none answers (or POSTGRES_ONLY_TESTS defers it to a run with DATABASE_URL).
const postgres = await TestDatabase.reachablePostgresUrl()
if (postgres === undefined) {
  console.warn(`campaign batch failover test SKIPPED: ${TestDatabase.postgresOnlySkipReason()}`)
}

/** What must hold whatever the runner was doing when it died. */
const assertExact = (report: CampaignFailoverReport) => {
  assert.strictEqual(report.status, "COMPLETED")
  assert.strictEqual(report.sessionsDialedTwice, 0, "no session dialled twice")
  assert.strictEqual(
    report.contactsMiscounted,
    0,
    "every contact dialled exactly as many times as it has attempts (less those cut mid-dial)"
  )
  assert.isAtMost(report.sessionsCutMidDial, 16)
  assert.strictEqual(report.contactsNotFinal, 0, "no contact forgotten")
  assert.strictEqual(report.totalDials + report.sessionsCutMidDial, report.attempts)
  assert.strictEqual(report.attemptsWithoutDialTime, 0)
  assert.strictEqual(report.dialedContacts, report.contacts)
  assert.deepStrictEqual(report.callsMisbilled, [], "every call billed for what the carrier says it talked")
  assert.strictEqual(report.callsEndedTwice, 0, "every call ended once")
  assert.strictEqual(report.calls, report.attempts)
  assert.strictEqual(report.walletBalance, report.ledgerBalance, "the wallet equals its ledger")
  assert.strictEqual(report.reserved, 0, "nothing left reserved")
  assert.strictEqual(report.callsChargedTwice, 0, "no call charged twice")
  assert.strictEqual(
    report.toppedUp - report.walletBalance,
    report.charged,
    "charged exactly the sum of the calls' costs"
  )
}

/**
 * `busy`: contacts that are busy on their first dial and redialled a minute later (the campaign's least redial delay).
 */
const run = (point: FailoverPoint, busy: number, left: (report: CampaignFailoverReport) => void) =>
  Effect.gen(function*() {
    const report = yield* runCampaignFailover(postgres!, false, 30, busy, point)
    console.log(
      `campaign batch failover at ${point.name}: dialing resumed ${report.resumedAfterMs} ms after SIGKILL`,
      report
    )
    assert.isAbove(report.dialsBeforeKill, 0, "the runner had dialled before it died")
    left(report)
    assertExact(report)
  })

describe.skipIf(postgres === undefined)("campaign batch failover on PostgreSQL (PostgreSQL only)", () => {
  it.live(
    "a runner killed right after a batched claim committed (sessions QUEUED, reserved, none started): the survivors " +
      "dial each once",
    () =>
      run(
        { name: "campaign.after-claim", at: 2 },
        10,
        (report) => assert.isAbove(report.queuedAtKill, 0, "the dead runner left claimed sessions QUEUED")
      ),
    { timeout: 300_000 }
  )

  it.live(
    "a runner killed in a settlement flush (calls ENDED, not settled): the tenant's next owner settles each once",
    () =>
      // no redials: a settlement flush is the same whichever attempt a call is, and the redial's minute
      // would be most of this test's time
      run(
        { name: "tenant.before-settle-flush", at: 3 },
        0,
        (report) => assert.isAbove(report.unsettledAtKill, 0, "the dead runner left ended calls unsettled")
      ),
    { timeout: 300_000 }
  )
})
