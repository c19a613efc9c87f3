import { assert, describe, it } from "@effect/vitest"
import { shouldRecord } from "@voiceagent/domain/Recordings"

describe("which calls are recorded", () => {
  it("the agent's never wins; then the call's own request; then the agent's setting (off by default)", () => {
    const table = [
      [undefined, undefined, false],
      [undefined, true, true],
      [undefined, false, false],
      ["off", undefined, false],
      ["off", true, true],
      ["off", false, false],
      ["on", undefined, true],
      ["on", true, true],
      ["on", false, false],
      ["never", undefined, false],
      ["never", true, false],
      ["never", false, false]
    ] as const
    for (const [agent, call, recorded] of table) {
      assert.strictEqual(shouldRecord(agent, call), recorded, `${agent} / ${call}`)
    }
  })
})
