import { assert, describe, it } from "@effect/vitest"
import { type CallWindow, isOpen, isValidTimezone, localParts } from "@voiceagent/domain/CallWindow"
import { PHONE_TIME_ZONE_NAMES } from "@voiceagent/domain/PhoneTimeZonesData"
import { type LocalHours, recipientWindow, TCPA_HOURS, timeZonesOf } from "@voiceagent/domain/RecipientHours"
import fc from "fast-check"

const at = (iso: string) => Date.parse(iso)
const show = (ms: number | undefined) => (ms === undefined ? "never" : new Date(ms).toISOString())
const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** One number per US zone, two whose area spans zones, and numbers elsewhere. */
const numbers = {
  eastern: "+12125550123",
  central: "+13125550123",
  mountain: "+13035550123",
  arizona: "+16025550123",
  pacific: "+12135550123",
  alaska: "+19075550123",
  hawaii: "+18085550123",
  idaho: "+12085550123",
  tollFree: "+18005550123",
  london: "+442071234567",
  ukMobile: "+447911123456",
  paris: "+33142685300",
  india: "+919876543210",
  moscow: "+74951234567",
  russianMobile: "+79161234567",
  australianMobile: "+61412345678",
  brazilMobile: "+5511987654321",
  unknown: "+19995550123"
} as const

/** Oracle: local minute of the day in `zone`, read off the wall clock. */
const minuteOfDay = (zone: string, t: number) => {
  const p = localParts(zone, t)
  return p.hour * 60 + p.minute
}
const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3))

/** Oracle: open when every zone's wall clock is inside the hours and every extra window is open. */
const openByOracle = (zones: ReadonlyArray<string>, hours: LocalHours, within: ReadonlyArray<CallWindow>, t: number) =>
  zones.length > 0 &&
  zones.every((z) => {
    const m = minuteOfDay(z, t)
    return m >= toMinutes(hours.start) && m < toMinutes(hours.end)
  }) &&
  within.every((w) => isOpen(w, t))

describe("RecipientHours", () => {
  describe("timeZonesOf", () => {
    it("reads the area code in North America, the exchange where an area code spans zones", () => {
      assert.deepStrictEqual(timeZonesOf(numbers.eastern), ["America/New_York"])
      assert.deepStrictEqual(timeZonesOf(numbers.central), ["America/Chicago"])
      assert.deepStrictEqual(timeZonesOf(numbers.mountain), ["America/Denver"])
      assert.deepStrictEqual(timeZonesOf(numbers.arizona), ["America/Phoenix"])
      assert.deepStrictEqual(timeZonesOf(numbers.pacific), ["America/Los_Angeles"])
      assert.deepStrictEqual(timeZonesOf(numbers.alaska), ["America/Adak", "America/Anchorage"])
      assert.deepStrictEqual(timeZonesOf(numbers.hawaii), ["Pacific/Honolulu"])
      assert.deepStrictEqual(timeZonesOf(numbers.idaho), ["America/Boise", "America/Los_Angeles"])
      assert.deepStrictEqual(timeZonesOf("+12082010123"), ["America/Denver"], "a 208 exchange the table places")
    })

    it("gives non-geographic numbers their whole country, and nothing to unknown or invalid ones", () => {
      const nanp = timeZonesOf(numbers.tollFree)
      assert.isAbove(nanp.length, 30)
      for (const z of ["Pacific/Guam", "Pacific/Pago_Pago", "America/St_Johns", "America/New_York"]) {
        assert.include(nanp, z)
      }
      assert.strictEqual(timeZonesOf(numbers.russianMobile).length, 16)
      assert.deepStrictEqual(timeZonesOf(numbers.moscow), ["Europe/Moscow"], "a Moscow landline")
      assert.deepStrictEqual(timeZonesOf(numbers.paris), ["Europe/Paris"])
      assert.deepStrictEqual(
        timeZonesOf(numbers.brazilMobile),
        ["America/Sao_Paulo"],
        "Brazil's mobiles are geographic"
      )
      for (const p of [numbers.unknown, "+1", "12125550123", "", "+999123456789", "not a number"]) {
        assert.deepStrictEqual(timeZonesOf(p), [], p)
      }
    })

    it("names only zones this runtime's Intl knows", () => {
      for (const z of PHONE_TIME_ZONE_NAMES) assert.isTrue(isValidTimezone(z), z)
    })
  })

  describe("recipientWindow", () => {
    it("each US zone opens at its own 08:00 and closes at 21:00, across the spring-forward", () => {
      // Sunday 2026-03-08, 12:00Z: daylight time began at 02:00 local in each zone that keeps it
      const t = at("2026-03-08T12:00:00Z")
      const expect: Array<[string, string, string]> = [
        [numbers.eastern, "2026-03-08T12:00:00.000Z", "2026-03-09T01:00:00.000Z"], // 08:00 EDT: open now
        [numbers.central, "2026-03-08T13:00:00.000Z", "2026-03-09T02:00:00.000Z"],
        [numbers.mountain, "2026-03-08T14:00:00.000Z", "2026-03-09T03:00:00.000Z"],
        [numbers.arizona, "2026-03-08T15:00:00.000Z", "2026-03-09T04:00:00.000Z"], // MST all year
        [numbers.pacific, "2026-03-08T15:00:00.000Z", "2026-03-09T04:00:00.000Z"],
        // Adak opens last, Anchorage closes first
        [numbers.alaska, "2026-03-08T17:00:00.000Z", "2026-03-09T05:00:00.000Z"],
        [numbers.hawaii, "2026-03-08T18:00:00.000Z", "2026-03-09T07:00:00.000Z"],
        [numbers.idaho, "2026-03-08T15:00:00.000Z", "2026-03-09T03:00:00.000Z"] // Los Angeles opens, Boise closes
      ]
      for (const [phone, opens, closes] of expect) {
        const w = recipientWindow(phone, t)
        assert.strictEqual(show(w.opensAt), opens, phone)
        assert.strictEqual(w.open, opens === show(t), phone)
        const inside = w.opensAt!
        assert.strictEqual(show(recipientWindow(phone, inside).closesAt), closes, phone)
        assert.isFalse(recipientWindow(phone, inside - 1).open, phone)
        assert.isFalse(recipientWindow(phone, at(closes)).open, phone)
      }
    })

    it("after the fall-back, New York opens an hour later in UTC and Phoenix does not move", () => {
      const before = at("2026-10-31T06:00:00Z")
      const after = at("2026-11-01T09:00:00Z")
      assert.strictEqual(show(recipientWindow(numbers.eastern, before).opensAt), "2026-10-31T12:00:00.000Z")
      assert.strictEqual(show(recipientWindow(numbers.eastern, after).opensAt), "2026-11-01T13:00:00.000Z")
      assert.strictEqual(show(recipientWindow(numbers.arizona, before).opensAt), "2026-10-31T15:00:00.000Z")
      assert.strictEqual(show(recipientWindow(numbers.arizona, after).opensAt), "2026-11-01T15:00:00.000Z")
    })

    it(
      "reads the stricter hours: a toll-free number is open only while it is 08:00-21:00 from Guam to Newfoundland",
      () => {
        // November: Guam UTC+10 opens at 22:00Z, St. John's UTC-03:30 closes at 00:30Z
        const w = recipientWindow(numbers.tollFree, at("2026-11-02T12:00:00Z"))
        assert.strictEqual(show(w.opensAt), "2026-11-02T22:00:00.000Z")
        assert.strictEqual(
          show(recipientWindow(numbers.tollFree, at("2026-11-02T22:00:00Z")).closesAt),
          "2026-11-03T00:30:00.000Z"
        )
        const never = recipientWindow(numbers.unknown, at("2026-11-02T12:00:00Z"))
        assert.deepStrictEqual([never.zones, never.open, never.opensAt], [[], false, undefined])
      }
    )

    it("with the campaign's own window: the first overlap, or none", () => {
      const officeNewYork: CallWindow = {
        timezone: "America/New_York",
        start: "09:00",
        end: "17:00",
        days: [1, 2, 3, 4, 5]
      }
      // Friday 2026-11-06 18:00Z = 13:00 EST: Hawaii opens at 08:00 HST = 18:00Z, inside the office hours
      const friday = recipientWindow(numbers.hawaii, at("2026-11-06T15:00:00Z"), { within: [officeNewYork] })
      assert.strictEqual(show(friday.opensAt), "2026-11-06T18:00:00.000Z")
      // after 17:00 EST on Friday: Monday at 18:00Z
      assert.strictEqual(
        show(recipientWindow(numbers.hawaii, at("2026-11-06T22:30:00Z"), { within: [officeNewYork] }).opensAt),
        "2026-11-09T18:00:00.000Z"
      )
      const morning: CallWindow = { ...officeNewYork, start: "06:00", end: "08:00" }
      assert.strictEqual(
        recipientWindow(numbers.hawaii, at("2026-11-06T15:00:00Z"), { within: [morning] }).opensAt,
        undefined,
        "never overlaps"
      )
    })

    it(
      "properties: open agrees with the wall clocks; opensAt is the first open instant; closesAt the first closed one",
      () => {
        const hhmm = fc.integer({ min: 0, max: 23 * 60 + 58 }).map((m) =>
          `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`
        )
        const hours = fc.oneof(
          fc.constant(TCPA_HOURS),
          fc.tuple(hhmm, hhmm).filter(([a, b]) => a !== b).map((
            [a, b]
          ): LocalHours => (a < b ? { start: a, end: b } : { start: b, end: a }))
        )
        const within = fc.oneof(
          fc.constant<ReadonlyArray<CallWindow>>([]),
          fc.record({
            timezone: fc.constantFrom("UTC", "America/New_York", "Asia/Kolkata", "Europe/Berlin"),
            start: fc.constantFrom("06:00", "09:00", "12:30"),
            end: fc.constantFrom("13:00", "18:00", "23:00"),
            days: fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 })
          }).map((w): ReadonlyArray<CallWindow> => [w])
        )
        // 2026 and 2027, both DST changes included
        const instant = fc.integer({ min: at("2026-01-01T00:00:00Z"), max: at("2027-12-31T00:00:00Z") })
        fc.assert(
          fc.property(
            fc.constantFrom(...Object.values(numbers)),
            instant,
            hours,
            within,
            fc.double({ min: 0, max: 1, noNaN: true }),
            (phone, t, h, w, u) => {
              const zones = timeZonesOf(phone)
              const result = recipientWindow(phone, t, { hours: h, within: w })
              assert.strictEqual(result.open, openByOracle(zones, h, w, t), `${phone} at ${show(t)}`)
              if (result.opensAt === undefined) {
                // no open quarter-hour in the week ahead either
                for (let s = t; s < t + 8 * 24 * HOUR; s += 15 * MINUTE) {
                  assert.isFalse(
                    openByOracle(zones, h, w, s),
                    `${phone} at ${show(s)}`
                  )
                }
                return
              }
              const opens = result.opensAt
              assert.isTrue(opens >= t && openByOracle(zones, h, w, opens), `${phone} opens ${show(opens)}`)
              assert.strictEqual(result.open, opens === t)
              if (opens > t) {
                assert.isFalse(openByOracle(zones, h, w, opens - 1), `${phone}: open before ${show(opens)}`)
                const between = Math.min(opens - 1, t + Math.floor(u * (opens - t)))
                assert.isFalse(
                  openByOracle(zones, h, w, between),
                  `${phone}: open at ${show(between)}, before ${show(opens)}`
                )
              }
              const inside = recipientWindow(phone, opens, { hours: h, within: w })
              const closes = inside.closesAt
              assert.isDefined(closes)
              assert.isTrue(
                closes! > opens && openByOracle(zones, h, w, closes! - 1) && !openByOracle(zones, h, w, closes!),
                `${phone} closes ${show(closes)}`
              )
            }
          ),
          { numRuns: 300 }
        )
      }
    )
  })
})
