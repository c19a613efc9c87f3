import { assert, describe, it } from "@effect/vitest"
import { defaultKeypad, type KeypadEntry, keypadText, makeKeypad } from "@voiceagent/runner/Voice/Keypad"
import { Effect, TestClock } from "effect"

const collect = (settings = defaultKeypad) =>
  Effect.gen(function*() {
    const entries: Array<KeypadEntry> = []
    const keypad = yield* makeKeypad(settings, (entry) => Effect.sync(() => void entries.push(entry)))
    const press = (keys: string, gapMs = 200) =>
      Effect.forEach(Array.from(keys), (key) => Effect.zipRight(keypad.press(key), TestClock.adjust(gapMs)), {
        discard: true
      })
    return { entries, keypad, press }
  })

describe("the keypad collector", () => {
  it.scoped("the terminator ends an entry at once and is not part of it; pressed alone, it is the entry", () =>
    Effect.gen(function*() {
      const { entries, press } = yield* collect()
      yield* press("1234#")
      assert.deepStrictEqual(entries, [{ digits: "1234", endedBy: "terminator", startedAt: 0, at: 800 }])
      assert.strictEqual(keypadText(entries[0]!), "[keypad] 1234")
      yield* press("#")
      assert.deepInclude(entries[1], { digits: "#", endedBy: "terminator" })
      // nothing more comes of the time passing
      yield* TestClock.adjust(60_000)
      assert.strictEqual(entries.length, 2)
    }))

  it.scoped("the inter-digit timeout ends an entry 3 s after its last key, not before; each key restarts it", () =>
    Effect.gen(function*() {
      const { entries, keypad, press } = yield* collect()
      yield* press("12", 2_900)
      assert.deepStrictEqual(entries, [])
      assert.strictEqual(keypad.pending(), "12")
      // 2.9 s after the second key: 100 ms to go
      yield* TestClock.adjust(99)
      assert.deepStrictEqual(entries, [])
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(entries, [{ digits: "12", endedBy: "timeout", startedAt: 0, at: 5_900 }])
      assert.strictEqual(keypad.pending(), "")
    }))

  it.scoped("per-agent settings: another terminator, a shorter timeout, a length that ends the entry", () =>
    Effect.gen(function*() {
      const { entries, press } = yield* collect({ terminator: "*", interDigitMs: 1_000, maxDigits: 4 })
      yield* press("9#*", 100)
      assert.deepInclude(entries[0], { digits: "9#", endedBy: "terminator" })
      yield* press("123456", 100)
      assert.deepInclude(entries[1], { digits: "1234", endedBy: "maxDigits" })
      yield* TestClock.adjust(1_000)
      assert.deepInclude(entries[2], { digits: "56", endedBy: "timeout" })
      const none = yield* collect({ terminator: null, interDigitMs: 500, maxDigits: 20 })
      yield* none.press("#1", 100)
      yield* TestClock.adjust(500)
      assert.deepInclude(none.entries[0], { digits: "#1", endedBy: "timeout" })
    }))
})
