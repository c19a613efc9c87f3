import { assert, describe, it } from "@effect/vitest"
import {
  type CallWindow,
  closesAt,
  closesAtOfAll,
  isOpen,
  isOpenAll,
  isValidTimezone,
  localParts,
  nextOpening,
  nextOpeningOfAll,
  parseHHMM,
  zonedToEpoch
} from "@voiceagent/domain/CallWindow"

const at = (iso: string) => {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`bad test instant ${iso}`)
  return ms
}
const show = (ms: number | undefined) => (ms === undefined ? "undefined" : new Date(ms).toISOString())
const assertInstant = (actual: number | undefined, expected: string) => assert.strictEqual(show(actual), expected)

const MINUTE = 60_000
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7]

/** 09:00–17:00 Monday to Friday in New York. */
const office: CallWindow = { timezone: "America/New_York", start: "09:00", end: "17:00", days: [1, 2, 3, 4, 5] }
/** 09:00–10:00 every day in New York: closed at 10:00 local, so Saturday 10:00 waits for Sunday. */
const morning: CallWindow = { timezone: "America/New_York", start: "09:00", end: "10:00", days: EVERY_DAY }
/** 10:00–19:00 Monday to Saturday in India (UTC+05:30, no DST). */
const kolkata: CallWindow = { timezone: "Asia/Kolkata", start: "10:00", end: "19:00", days: [1, 2, 3, 4, 5, 6] }

describe("CallWindow", () => {
  describe("parseHHMM", () => {
    it("reads two-digit 24-hour times as minutes after midnight", () => {
      assert.strictEqual(parseHHMM("00:00"), 0)
      assert.strictEqual(parseHHMM("09:00"), 540)
      assert.strictEqual(parseHHMM("12:34"), 754)
      assert.strictEqual(parseHHMM("19:59"), 1199)
      assert.strictEqual(parseHHMM("23:59"), 1439)
    })

    it("refuses anything else", () => {
      for (
        const s of [
          "24:00",
          "9:00",
          "09:0",
          "12:60",
          "25:00",
          "",
          "0900",
          "09:00:00",
          " 09:00",
          "09:00 ",
          "9:5",
          "-1:00",
          "+9:00",
          "09.00",
          "ab:cd",
          "２３:00"
        ]
      ) {
        assert.strictEqual(parseHHMM(s), undefined, JSON.stringify(s))
      }
    })
  })

  describe("isValidTimezone", () => {
    it("accepts IANA zones", () => {
      for (const tz of ["America/New_York", "Asia/Kolkata", "Europe/London", "UTC", "Etc/GMT+5"]) {
        assert.isTrue(isValidTimezone(tz), tz)
      }
    })

    it("refuses unknown names", () => {
      for (const tz of ["Mars/Base", "", "EST5EDT-garbage", "America/Nowhere", "New York"]) {
        assert.isFalse(isValidTimezone(tz), JSON.stringify(tz))
      }
    })
  })

  describe("localParts", () => {
    it("gives the wall clock, with midnight as hour 0", () => {
      assert.deepStrictEqual(localParts("America/New_York", at("2026-03-08T05:00:00Z")), {
        year: 2026,
        month: 3,
        day: 8,
        hour: 0,
        minute: 0,
        second: 0,
        isoWeekday: 7
      })
      assert.deepStrictEqual(localParts("Asia/Kolkata", at("2026-11-22T18:29:59.999Z")), {
        year: 2026,
        month: 11,
        day: 22,
        hour: 23,
        minute: 59,
        second: 59,
        isoWeekday: 7
      })
      assert.deepStrictEqual(localParts("Asia/Kolkata", at("2026-11-22T18:30:00Z")), {
        year: 2026,
        month: 11,
        day: 23,
        hour: 0,
        minute: 0,
        second: 0,
        isoWeekday: 1
      })
    })

    it("throws for an unknown timezone", () => {
      assert.throws(() => localParts("Mars/Base", 0), RangeError)
    })
  })

  describe("zonedToEpoch", () => {
    it("uses the offset of that day", () => {
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 1, day: 7, hour: 9, minute: 0 }),
        "2026-01-07T14:00:00.000Z"
      )
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 7, day: 8, hour: 9, minute: 0 }),
        "2026-07-08T13:00:00.000Z"
      )
      assertInstant(
        zonedToEpoch("Asia/Kolkata", { year: 2026, month: 11, day: 21, hour: 10, minute: 0 }),
        "2026-11-21T04:30:00.000Z"
      )
      assertInstant(
        zonedToEpoch("UTC", { year: 2026, month: 2, day: 28, hour: 23, minute: 59 }),
        "2026-02-28T23:59:00.000Z"
      )
    })

    it("moves a local time in the spring-forward gap past it by the gap's length", () => {
      // 2026-03-08 02:00 EST → 03:00 EDT (07:00Z): 02:30 does not exist and is read as 02:30 EST = 03:30 EDT.
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 3, day: 8, hour: 2, minute: 30 }),
        "2026-03-08T07:30:00.000Z"
      )
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 3, day: 8, hour: 2, minute: 0 }),
        "2026-03-08T07:00:00.000Z"
      )
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 3, day: 8, hour: 1, minute: 59 }),
        "2026-03-08T06:59:00.000Z"
      )
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 3, day: 8, hour: 3, minute: 0 }),
        "2026-03-08T07:00:00.000Z"
      )
    })

    it("takes the earlier instant of a local time repeated at fall-back", () => {
      // 2026-11-01 02:00 EDT → 01:00 EST (06:00Z): 01:30 happens at 05:30Z and again at 06:30Z.
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 11, day: 1, hour: 1, minute: 30 }),
        "2026-11-01T05:30:00.000Z"
      )
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 11, day: 1, hour: 0, minute: 59 }),
        "2026-11-01T04:59:00.000Z"
      )
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 11, day: 1, hour: 2, minute: 0 }),
        "2026-11-01T07:00:00.000Z"
      )
    })

    it("round-trips with localParts for every quarter hour of both DST days", () => {
      for (const day of [at("2026-03-08T05:00:00Z"), at("2026-11-01T04:00:00Z")]) {
        for (let t = day; t < day + 26 * 3_600_000; t += 15 * MINUTE) {
          const p = localParts("America/New_York", t)
          const back = zonedToEpoch("America/New_York", p)
          assert.strictEqual(localParts("America/New_York", back).hour, p.hour, show(t))
          assert.isTrue(back <= t, `${show(t)} → ${show(back)}`)
          assert.isTrue(back === t || back === t - 3_600_000, `${show(t)} → ${show(back)}`)
        }
      }
    })
  })

  describe("isOpen", () => {
    it("includes start and excludes end, in local time", () => {
      // Wednesday 2026-01-07, EST (UTC-5).
      assert.isFalse(isOpen(office, at("2026-01-07T13:59:59Z")), "08:59:59")
      assert.isFalse(isOpen(office, at("2026-01-07T13:59:59.999Z")), "08:59:59.999")
      assert.isTrue(isOpen(office, at("2026-01-07T14:00:00Z")), "09:00")
      assert.isTrue(isOpen(office, at("2026-01-07T21:59:00Z")), "16:59")
      assert.isTrue(isOpen(office, at("2026-01-07T21:59:59.999Z")), "16:59:59.999")
      assert.isFalse(isOpen(office, at("2026-01-07T22:00:00Z")), "17:00")
      // Wednesday 2026-07-08, EDT (UTC-4).
      assert.isFalse(isOpen(office, at("2026-07-08T12:59:59Z")), "08:59:59 EDT")
      assert.isTrue(isOpen(office, at("2026-07-08T13:00:00Z")), "09:00 EDT")
      assert.isFalse(isOpen(office, at("2026-07-08T21:00:00Z")), "17:00 EDT")
    })

    it("is closed on days not listed", () => {
      assert.isFalse(isOpen(office, at("2026-01-10T17:00:00Z")), "Saturday 12:00")
      assert.isFalse(isOpen(office, at("2026-01-11T17:00:00Z")), "Sunday 12:00")
      assert.isTrue(isOpen(office, at("2026-01-12T17:00:00Z")), "Monday 12:00")
    })

    it("uses the local weekday, not the UTC one", () => {
      // 2026-01-10T01:00Z is Saturday in UTC but still Friday 20:00 in New York.
      assert.isTrue(isOpen({ ...office, end: "21:00" }, at("2026-01-10T01:00:00Z")))
      // Monday 00:30 IST is still Sunday in UTC.
      assert.isTrue(isOpen({ ...kolkata, start: "00:00" }, at("2026-11-22T19:00:00Z")))
    })

    it("handles India's half-hour offset", () => {
      // Saturday 2026-11-21.
      assert.isFalse(isOpen(kolkata, at("2026-11-21T04:29:59Z")), "09:59:59 IST")
      assert.isTrue(isOpen(kolkata, at("2026-11-21T04:30:00Z")), "10:00 IST")
      assert.isTrue(isOpen(kolkata, at("2026-11-21T13:29:00Z")), "18:59 IST")
      assert.isFalse(isOpen(kolkata, at("2026-11-21T13:30:00Z")), "19:00 IST")
      assert.isFalse(isOpen(kolkata, at("2026-11-22T06:00:00Z")), "Sunday 11:30 IST")
    })

    it("is never open for a window that cannot be interpreted", () => {
      const noon = at("2026-01-07T17:00:00Z")
      assert.isTrue(isOpen(office, noon))
      for (
        const w of [
          { ...office, timezone: "Mars/Base" },
          { ...office, start: "9:00" },
          { ...office, end: "24:00" },
          { ...office, start: "17:00", end: "09:00" },
          { ...office, end: "09:00" },
          { ...office, days: [] },
          { ...office, days: [0, 8, 3.5] }
        ]
      ) {
        assert.isFalse(isOpen(w, noon), JSON.stringify(w))
        assert.strictEqual(nextOpening(w, noon), undefined, JSON.stringify(w))
        assert.strictEqual(closesAt(w, noon), undefined, JSON.stringify(w))
      }
    })
  })

  describe("nextOpening", () => {
    it("is the instant itself when open", () => {
      assertInstant(nextOpening(office, at("2026-01-07T14:00:00Z")), "2026-01-07T14:00:00.000Z")
      assertInstant(nextOpening(office, at("2026-01-07T18:12:34.567Z")), "2026-01-07T18:12:34.567Z")
    })

    it("is today's start before the window, the next weekday's start after it", () => {
      assertInstant(nextOpening(office, at("2026-01-07T13:59:59Z")), "2026-01-07T14:00:00.000Z")
      assertInstant(nextOpening(office, at("2026-01-07T22:00:00Z")), "2026-01-08T14:00:00.000Z")
    })

    it("skips the weekend: Friday 18:00 → Monday 09:00", () => {
      assertInstant(nextOpening(office, at("2026-01-09T23:00:00Z")), "2026-01-12T14:00:00.000Z")
      assertInstant(nextOpening(office, at("2026-07-10T22:00:00Z")), "2026-07-13T13:00:00.000Z")
    })

    it("converts with the offset of the opening day across spring-forward", () => {
      // Saturday 2026-03-07 10:00 EST → Sunday 09:00 EDT.
      assertInstant(nextOpening(morning, at("2026-03-07T15:00:00Z")), "2026-03-08T13:00:00.000Z")
    })

    it("converts with the offset of the opening day across fall-back", () => {
      // Saturday 2026-10-31 10:00 EDT → Sunday 09:00 EST.
      assertInstant(nextOpening(morning, at("2026-10-31T14:00:00Z")), "2026-11-01T14:00:00.000Z")
    })

    it("opens right after the gap when start falls in it", () => {
      const gap: CallWindow = { ...morning, start: "02:30" }
      // The wall clock jumps from 01:59:59 EST to 03:00 EDT (07:00Z), already past 02:30: open from there,
      // even though zonedToEpoch reads 02:30 itself as 03:30 EDT (07:30Z).
      assertInstant(nextOpening(gap, at("2026-03-07T15:00:00Z")), "2026-03-08T07:00:00.000Z")
      assert.isFalse(isOpen(gap, at("2026-03-08T06:59:59.999Z")))
      assert.isTrue(isOpen(gap, at("2026-03-08T07:00:00Z")))
      assert.isTrue(isOpen(gap, at("2026-03-08T07:30:00Z")))
      assertInstant(
        zonedToEpoch("America/New_York", { year: 2026, month: 3, day: 8, hour: 2, minute: 30 }),
        "2026-03-08T07:30:00.000Z"
      )
      // The day after, 02:30 exists again: 02:30 EDT.
      assertInstant(nextOpening(gap, at("2026-03-08T15:00:00Z")), "2026-03-09T06:30:00.000Z")
    })

    it("opens a second time when fall-back repeats the window's local times", () => {
      const early: CallWindow = { timezone: "America/New_York", start: "00:30", end: "01:15", days: [7] }
      // Sunday 2026-11-01: 00:30–01:15 EDT is 04:30Z–05:15Z; at 06:00Z the clock returns to 01:00 (EST).
      assertInstant(nextOpening(early, at("2026-11-01T04:00:00Z")), "2026-11-01T04:30:00.000Z")
      assertInstant(nextOpening(early, at("2026-11-01T05:20:00Z")), "2026-11-01T06:00:00.000Z")
      assertInstant(closesAt(early, at("2026-11-01T06:00:00Z")), "2026-11-01T06:15:00.000Z")
      // After the second closing, next Sunday 00:30 EST.
      assertInstant(nextOpening(early, at("2026-11-01T06:15:00Z")), "2026-11-08T05:30:00.000Z")
    })

    it("skips days not listed, with a half-hour offset", () => {
      // Saturday 2026-11-21 19:30 IST (14:00Z) → Monday 10:00 IST; Sunday is not allowed.
      assertInstant(nextOpening(kolkata, at("2026-11-21T14:00:00Z")), "2026-11-23T04:30:00.000Z")
      assertInstant(nextOpening(kolkata, at("2026-11-21T04:30:00Z")), "2026-11-21T04:30:00.000Z")
      assertInstant(nextOpening(kolkata, at("2026-11-21T13:30:00Z")), "2026-11-23T04:30:00.000Z")
    })

    it("finds a weekly window a full week ahead", () => {
      const mondays: CallWindow = { ...office, days: [1] }
      // Monday 2026-01-12 17:00 EST → Monday 2026-01-19 09:00 EST.
      assertInstant(nextOpening(mondays, at("2026-01-12T22:00:00Z")), "2026-01-19T14:00:00.000Z")
      // Monday 2026-03-02 17:00 EST → Monday 2026-03-09 09:00 EDT, a week less an hour later.
      assertInstant(nextOpening(mondays, at("2026-03-02T22:00:00Z")), "2026-03-09T13:00:00.000Z")
    })

    it("is undefined when days is empty", () => {
      assert.strictEqual(nextOpening({ ...office, days: [] }, at("2026-01-07T14:00:00Z")), undefined)
      assert.strictEqual(nextOpening({ ...kolkata, days: [] }, at("2026-11-21T14:00:00Z")), undefined)
    })
  })

  describe("closesAt", () => {
    it("is the local end of the current opening", () => {
      assertInstant(closesAt(office, at("2026-01-07T14:00:00Z")), "2026-01-07T22:00:00.000Z")
      assertInstant(closesAt(office, at("2026-01-07T21:59:59.999Z")), "2026-01-07T22:00:00.000Z")
      assertInstant(closesAt(office, at("2026-07-08T13:00:00Z")), "2026-07-08T21:00:00.000Z")
      assertInstant(closesAt(kolkata, at("2026-11-21T04:30:00Z")), "2026-11-21T13:30:00.000Z")
    })

    it("is undefined when closed", () => {
      assert.strictEqual(closesAt(office, at("2026-01-07T13:59:59Z")), undefined)
      assert.strictEqual(closesAt(office, at("2026-01-07T22:00:00Z")), undefined)
      assert.strictEqual(closesAt(office, at("2026-01-10T17:00:00Z")), undefined)
      assert.strictEqual(closesAt(kolkata, at("2026-11-21T13:30:00Z")), undefined)
    })

    it("ends at the jump when a DST change moves the clock out of the window", () => {
      // 01:00–02:30 on spring-forward day: open at 01:30 EST, the clock jumps from 02:00 EST to 03:00 EDT.
      const night: CallWindow = { timezone: "America/New_York", start: "01:00", end: "02:30", days: EVERY_DAY }
      assertInstant(closesAt(night, at("2026-03-08T06:30:00Z")), "2026-03-08T07:00:00.000Z")
      // 01:00–03:00 on fall-back day: 01:00 EDT until 03:00 EST, three hours of clock time.
      const long: CallWindow = { ...night, end: "03:00" }
      assertInstant(closesAt(long, at("2026-11-01T05:30:00Z")), "2026-11-01T08:00:00.000Z")
    })
  })

  describe("several windows at once", () => {
    it("are open where all of them are: the first overlap, its end, and none when they never overlap", () => {
      const t = at("2026-11-06T12:00:00Z") // Friday 07:00 EST, 17:30 IST
      assert.isTrue(isOpenAll([], t))
      assertInstant(nextOpeningOfAll([], t), "2026-11-06T12:00:00.000Z")
      // office 09:00-17:00 EST is 19:30-03:30 IST; Kolkata 10:00-19:00 Mon-Sat: they never overlap
      assert.strictEqual(nextOpeningOfAll([office, kolkata], t), undefined)
      const lateKolkata: CallWindow = { ...kolkata, end: "21:00" }
      assertInstant(nextOpeningOfAll([office, lateKolkata], t), "2026-11-06T14:00:00.000Z")
      assertInstant(closesAtOfAll([office, lateKolkata], at("2026-11-06T14:00:00Z")), "2026-11-06T15:30:00.000Z")
      assert.isFalse(isOpenAll([office, lateKolkata], at("2026-11-06T15:30:00Z")))
      assert.strictEqual(closesAtOfAll([office, lateKolkata], at("2026-11-06T15:30:00Z")), undefined)
    })
  })

  describe("properties", () => {
    const year = { from: at("2026-01-01T00:00:00Z"), to: at("2027-01-01T00:00:00Z") }
    const step = 7 * 3_600_000 + 13 * MINUTE

    it("nextOpening is the first open instant, every 7h13m through 2026 in New York", () => {
      let checked = 0
      let waited = 0
      for (let t = year.from; t < year.to; t += step) {
        const next = nextOpening(office, t)
        assert.isDefined(next, show(t))
        if (next === undefined) continue
        assert.isTrue(next >= t, `${show(t)} → ${show(next)}`)
        assert.isTrue(next - t < 4 * 86_400_000, `${show(t)} → ${show(next)}`)
        assert.isTrue(isOpen(office, next), `${show(t)} → ${show(next)}`)
        assert.strictEqual(next === t, isOpen(office, t), show(t))
        if (next > t + MINUTE) {
          assert.isFalse(isOpen(office, next - MINUTE), `${show(t)} → ${show(next)}`)
          assert.isFalse(isOpen(office, next - 1), `${show(t)} → ${show(next)}`)
          waited++
        }
        const p = localParts(office.timezone, next)
        if (next > t) assert.deepStrictEqual([p.hour, p.minute, p.second], [9, 0, 0], show(next))
        checked++
      }
      assert.isAbove(checked, 1200)
      assert.isAbove(waited, 600)
    })

    it("closesAt is the first closed instant, every 7h13m through 2026 in New York", () => {
      let open = 0
      for (let t = year.from; t < year.to; t += step) {
        const end = closesAt(office, t)
        if (!isOpen(office, t)) {
          assert.strictEqual(end, undefined, show(t))
          continue
        }
        assert.isDefined(end, show(t))
        if (end === undefined) continue
        assert.isTrue(end > t, `${show(t)} → ${show(end)}`)
        assert.isTrue(isOpen(office, end - 1), `${show(t)} → ${show(end)}`)
        assert.isFalse(isOpen(office, end), `${show(t)} → ${show(end)}`)
        const p = localParts(office.timezone, end)
        assert.deepStrictEqual([p.hour, p.minute], [17, 0], show(end))
        open++
      }
      assert.isAbove(open, 200)
    })

    it("agrees with a minute-by-minute scan around both DST changes", () => {
      const windows: ReadonlyArray<CallWindow> = [
        morning,
        { timezone: "America/New_York", start: "01:00", end: "02:30", days: EVERY_DAY },
        { timezone: "America/New_York", start: "02:30", end: "04:00", days: EVERY_DAY },
        { timezone: "America/New_York", start: "00:30", end: "01:15", days: EVERY_DAY },
        { timezone: "America/New_York", start: "01:30", end: "01:45", days: EVERY_DAY }
      ]
      const firstOpenByScan = (w: CallWindow, t: number) => {
        for (let s = t; s < t + 2 * 86_400_000; s += MINUTE) if (isOpen(w, s)) return s
        return undefined
      }
      for (const change of [at("2026-03-08T07:00:00Z"), at("2026-11-01T06:00:00Z")]) {
        for (const w of windows) {
          for (let t = change - 12 * 3_600_000; t <= change + 12 * 3_600_000; t += 37 * MINUTE) {
            const scanned = firstOpenByScan(w, t)
            assert.strictEqual(show(nextOpening(w, t)), show(scanned), `${w.start}-${w.end} from ${show(t)}`)
          }
        }
      }
    })
  })
})
