import { assert, describe, it } from "@effect/vitest"
import { CallOutcomes } from "@voiceagent/domain/CallMachine"
import {
  bodyLength,
  type CallDirection,
  type ChatAppCallStatus,
  chatAppMappingKey,
  chatAppTemplateFor,
  DEFAULT_LANGUAGE_CODE,
  GSM7_BASIC,
  GSM7_EXTENSION,
  isAlphanumericSenderId,
  isLanguageCode,
  isSmsCampaignName,
  NAME_FALLBACK,
  normalizeLanguageCode,
  placeholdersIn,
  renderTemplate,
  SMS_LIMITS,
  type SmsCallStatus,
  smsEncoding,
  smsSegments,
  smsStatusFor,
  smsTemplateFor,
  splitSegments,
  type TemplateContext,
  unknownPlaceholders
} from "@voiceagent/domain/MessageRules"
import { ChatAppTemplates, MESSAGING_LIMITS } from "@voiceagent/domain/Messaging"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import fc from "fast-check"

const a = (n: number) => "a".repeat(n)
const c = (n: number) => "ç".repeat(n) // U+00E7: not in GSM7 (only the capital Ç is)
const EMOJI = "😀" // U+1F600, a surrogate pair

const units = (segment: string) => smsSegments(segment).units

describe("MessageRules", () => {
  describe("GSM7 alphabet", () => {
    it("has the 127 basic characters (escape excluded) and the 10 extension characters", () => {
      assert.strictEqual(GSM7_BASIC.size, 127)
      assert.strictEqual(GSM7_EXTENSION.size, 10)
      for (const ch of ["^", "{", "}", "\\", "[", "~", "]", "|", "€", "\f"]) {
        assert.isTrue(GSM7_EXTENSION.has(ch), JSON.stringify(ch))
        assert.isFalse(GSM7_BASIC.has(ch), JSON.stringify(ch))
      }
      assert.isFalse(GSM7_BASIC.has("\u001b"))
    })

    it("follows the 3GPP TS 23.038 default table exactly", () => {
      for (const ch of "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ÄÖÑÜ§¿äöñüà") {
        assert.isTrue(GSM7_BASIC.has(ch), JSON.stringify(ch))
      }
      for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") assert.isTrue(GSM7_BASIC.has(ch), ch)
      // Lookalikes and near misses that are NOT in the alphabet.
      for (
        const ch of [
          "ç",
          "`",
          "á",
          "í",
          "ó",
          "ú",
          "â",
          "ê",
          "Ê",
          "È",
          "À",
          "ã",
          "õ",
          "œ",
          "\t",
          "’",
          "“",
          "–",
          "\u00a0",
          "α",
          "Δ".toLowerCase()
        ]
      ) {
        assert.isFalse(GSM7_BASIC.has(ch) || GSM7_EXTENSION.has(ch), JSON.stringify(ch))
      }
    })
  })

  describe("smsEncoding", () => {
    it("is GSM7 when every character is basic or extension", () => {
      assert.strictEqual(smsEncoding(""), "GSM7")
      assert.strictEqual(smsEncoding("Hello, world! {name} costs €5 ^_^"), "GSM7")
      assert.strictEqual(smsEncoding("Ça va? Ñoño, Øresund, Σ, ¿Qué? ¡Bien!"), "GSM7")
    })

    it("is UCS2 as soon as one character is outside the alphabet", () => {
      assert.strictEqual(smsEncoding("ç"), "UCS2")
      assert.strictEqual(smsEncoding(a(200) + "ç"), "UCS2")
      assert.strictEqual(smsEncoding("tab\there"), "UCS2")
      assert.strictEqual(smsEncoding(`hi ${EMOJI}`), "UCS2")
      assert.strictEqual(smsEncoding("नमस्ते"), "UCS2")
      assert.strictEqual(smsEncoding("`"), "UCS2")
      assert.strictEqual(smsEncoding("Ñandú"), "UCS2") // ù (grave) is in the table, ú (acute) is not
    })
  })

  describe("smsSegments", () => {
    it("is 0 segments for an empty body", () => {
      assert.deepStrictEqual(smsSegments(""), { encoding: "GSM7", units: 0, segments: 0, perSegment: 160 })
      assert.deepStrictEqual(splitSegments(""), [])
    })

    it("GSM7: 160 septets fit one message, 161 need two of 153", () => {
      assert.deepStrictEqual(smsSegments("a"), { encoding: "GSM7", units: 1, segments: 1, perSegment: 160 })
      assert.deepStrictEqual(smsSegments(a(160)), { encoding: "GSM7", units: 160, segments: 1, perSegment: 160 })
      assert.deepStrictEqual(smsSegments(a(161)), { encoding: "GSM7", units: 161, segments: 2, perSegment: 153 })
      assert.deepStrictEqual(splitSegments(a(161)), [a(153), a(8)])
    })

    it("GSM7: concatenated segments break at every multiple of 153", () => {
      for (const k of [2, 3, 4, 10]) {
        assert.strictEqual(smsSegments(a(153 * k)).segments, k, `${153 * k}`)
        assert.strictEqual(smsSegments(a(153 * k + 1)).segments, k + 1, `${153 * k + 1}`)
        assert.strictEqual(smsSegments(a(153 * k - 1)).segments, k, `${153 * k - 1}`)
      }
    })

    it("GSM7: € and ^ (and every extension character) count 2 septets", () => {
      assert.deepStrictEqual(smsSegments("€"), { encoding: "GSM7", units: 2, segments: 1, perSegment: 160 })
      assert.strictEqual(smsSegments("^").units, 2)
      assert.strictEqual(smsSegments("\f^{}\\[~]|€").units, 20)
      assert.strictEqual(smsSegments("a€b^c").units, 7)
      assert.deepStrictEqual(smsSegments("€".repeat(80)), {
        encoding: "GSM7",
        units: 160,
        segments: 1,
        perSegment: 160
      })
      assert.deepStrictEqual(smsSegments("€".repeat(80) + "a"), {
        encoding: "GSM7",
        units: 161,
        segments: 2,
        perSegment: 153
      })
      assert.deepStrictEqual(smsSegments(a(159) + "^"), { encoding: "GSM7", units: 161, segments: 2, perSegment: 153 })
    })

    it("GSM7: an extension character is never split across a segment boundary", () => {
      // 152 + 2 would be 154 > 153: the € moves to the next segment.
      assert.deepStrictEqual(splitSegments(a(152) + "€" + a(10)), [a(152), "€" + a(10)])
      // 151 + 2 is exactly 153: it stays.
      assert.deepStrictEqual(splitSegments(a(151) + "€" + a(10)), [a(151) + "€", a(10)])
      // 306 septets = 2 × 153, but the straddling € forces a third segment.
      const straddle = a(152) + "€" + a(152)
      assert.deepStrictEqual(smsSegments(straddle), { encoding: "GSM7", units: 306, segments: 3, perSegment: 153 })
      assert.deepStrictEqual(splitSegments(straddle), [a(152), "€" + a(151), "a"])
      assert.deepStrictEqual(smsSegments(a(151) + "€" + a(153)), {
        encoding: "GSM7",
        units: 306,
        segments: 2,
        perSegment: 153
      })
    })

    it("UCS2: 70 code units fit one message, 71 need two of 67", () => {
      assert.deepStrictEqual(smsSegments("ç"), { encoding: "UCS2", units: 1, segments: 1, perSegment: 70 })
      assert.deepStrictEqual(smsSegments(c(70)), { encoding: "UCS2", units: 70, segments: 1, perSegment: 70 })
      assert.deepStrictEqual(smsSegments(c(71)), { encoding: "UCS2", units: 71, segments: 2, perSegment: 67 })
      assert.deepStrictEqual(splitSegments(c(71)), [c(67), c(4)])
      for (const k of [2, 3, 5]) {
        assert.strictEqual(smsSegments(c(67 * k)).segments, k, `${67 * k}`)
        assert.strictEqual(smsSegments(c(67 * k + 1)).segments, k + 1, `${67 * k + 1}`)
      }
      // A GSM7 body turns UCS2 with one character, and € then costs 1 code unit.
      assert.deepStrictEqual(smsSegments(a(69) + "ç"), { encoding: "UCS2", units: 70, segments: 1, perSegment: 70 })
      assert.deepStrictEqual(smsSegments("€ç"), { encoding: "UCS2", units: 2, segments: 1, perSegment: 70 })
    })

    it("UCS2: an emoji counts 2 code units and is never split across a segment boundary", () => {
      assert.deepStrictEqual(smsSegments(EMOJI), { encoding: "UCS2", units: 2, segments: 1, perSegment: 70 })
      assert.deepStrictEqual(smsSegments(EMOJI.repeat(35)), {
        encoding: "UCS2",
        units: 70,
        segments: 1,
        perSegment: 70
      })
      assert.deepStrictEqual(smsSegments(EMOJI.repeat(35) + "ç"), {
        encoding: "UCS2",
        units: 71,
        segments: 2,
        perSegment: 67
      })
      assert.deepStrictEqual(splitSegments(EMOJI.repeat(35) + "ç"), [EMOJI.repeat(33), EMOJI.repeat(2) + "ç"])
      // 66 + 2 would be 68 > 67: the emoji moves to the next segment.
      assert.deepStrictEqual(splitSegments(c(66) + EMOJI + c(10)), [c(66), EMOJI + c(10)])
      // 65 + 2 is exactly 67: it stays.
      assert.deepStrictEqual(splitSegments(c(65) + EMOJI + c(10)), [c(65) + EMOJI, c(10)])
      // 134 code units = 2 × 67, but the straddling emoji forces a third segment.
      assert.deepStrictEqual(smsSegments(c(66) + EMOJI + c(66)).segments, 3)
    })

    it("property: segments rejoin to the text, respect the limit, keep pairs whole, and count", () => {
      const gsmChar = fc.constantFrom(...GSM7_BASIC, ...GSM7_EXTENSION)
      const anyChar = fc.oneof(
        { weight: 6, arbitrary: gsmChar },
        { weight: 1, arbitrary: fc.constantFrom("ç", "é", "अ", "中", "’", EMOJI, "👍🏽", "𝄞") },
        { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) }
      )
      const text = fc.oneof(
        fc.array(gsmChar, { maxLength: 700 }).map((cs) => cs.join("")),
        fc.array(anyChar, { maxLength: 400 }).map((cs) => cs.join("")),
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.string({ unit: "grapheme", maxLength: 200 })
      )
      fc.assert(
        fc.property(text, (t) => {
          const info = smsSegments(t)
          const parts = splitSegments(t)
          assert.strictEqual(parts.join(""), t)
          assert.strictEqual(parts.length, info.segments)
          const limits = SMS_LIMITS[info.encoding]
          assert.strictEqual(info.perSegment, parts.length > 1 ? limits.concatenated : limits.single)
          // Counted in the body's encoding (a UCS2 body may have an all-GSM7 segment).
          const unitsOf = (s: string) => (info.encoding === "UCS2" ? s.length : units(s))
          let total = 0
          parts.forEach((part, i) => {
            assert.isAbove(part.length, 0)
            if (info.encoding === "GSM7") assert.strictEqual(smsEncoding(part), "GSM7")
            assert.isAtMost(unitsOf(part), info.perSegment)
            total += unitsOf(part)
            // A surrogate pair of the text is never cut in two.
            if (i > 0) assert.isFalse(/[\uD800-\uDBFF]$/.test(parts[i - 1]) && /^[\uDC00-\uDFFF]/.test(part))
            // Greedy packing: a further segment exists only because its first character did not fit.
            if (i > 0) assert.isAbove(unitsOf(parts[i - 1]) + unitsOf([...part][0]), limits.concatenated)
          })
          assert.strictEqual(total, info.units)
        }),
        { numRuns: 500 }
      )
    })
  })

  describe("placeholders", () => {
    it("finds the distinct keys in order, tolerating spaces inside the braces", () => {
      assert.deepStrictEqual(
        placeholdersIn("Hi {{name}}, {{ email }} / {{  phone\t}} {{name}} {{ metadata.order_id }}"),
        [
          "name",
          "email",
          "phone",
          "metadata.order_id"
        ]
      )
      assert.deepStrictEqual(placeholdersIn("no placeholders { name } {name} {{ name }"), [])
      assert.deepStrictEqual(placeholdersIn(""), [])
    })

    it("reports the keys outside the supported set", () => {
      assert.deepStrictEqual(unknownPlaceholders("Hi {{name}} {{email}} {{phone}} {{metadata.a-B_9}}"), [])
      assert.deepStrictEqual(
        unknownPlaceholders(
          "{{Name}} {{first name}} {{ }} {{metadata.}} {{metadata.a.b}} {{metadata.x y}} {{meta.x}} {{address}} " +
            "{{Name}}"
        ),
        ["Name", "first name", "", "metadata.", "metadata.a.b", "metadata.x y", "meta.x", "address"]
      )
    })
  })

  describe("renderTemplate", () => {
    const ctx: TemplateContext = {
      name: "  Ada Lovelace ",
      email: "ada@example.com",
      phone: "+14155552671",
      metadata: {
        order: "A-17",
        count: 3,
        ratio: 0.5,
        vip: true,
        off: false,
        none: null,
        obj: { a: 1 },
        list: [1, 2],
        empty: ""
      }
    }

    it("fills every supported key", () => {
      assert.strictEqual(
        renderTemplate("Hi {{name}} ({{ email }}, {{phone}}): order {{metadata.order}}", ctx),
        "Hi Ada Lovelace (ada@example.com, +14155552671): order A-17"
      )
    })

    it("falls back for a missing or blank name and a missing email", () => {
      assert.strictEqual(renderTemplate("Hi {{name}}", { ...ctx, name: null }), `Hi ${NAME_FALLBACK}`)
      assert.strictEqual(renderTemplate("Hi {{name}}", { ...ctx, name: "" }), "Hi Customer")
      assert.strictEqual(renderTemplate("Hi {{name}}", { ...ctx, name: " \t\n " }), "Hi Customer")
      assert.strictEqual(renderTemplate("[{{email}}]", { ...ctx, email: null }), "[]")
      assert.strictEqual(renderTemplate("{{ phone }}", { ...ctx, phone: "0044 20 7946 0958" }), "0044 20 7946 0958")
    })

    it("turns metadata values into text", () => {
      const render = (key: string) => renderTemplate(`<{{metadata.${key}}}>`, ctx)
      assert.strictEqual(render("order"), "<A-17>")
      assert.strictEqual(render("count"), "<3>")
      assert.strictEqual(render("ratio"), "<0.5>")
      assert.strictEqual(render("vip"), "<true>")
      assert.strictEqual(render("off"), "<false>")
      assert.strictEqual(render("empty"), "<>")
      assert.strictEqual(render("none"), "<>")
      assert.strictEqual(render("obj"), "<>")
      assert.strictEqual(render("list"), "<>")
      assert.strictEqual(render("missing"), "<>")
      // Inherited properties are not metadata.
      assert.strictEqual(render("constructor"), "<>")
      assert.strictEqual(render("toString"), "<>")
    })

    it("leaves unknown placeholders exactly as written", () => {
      assert.strictEqual(
        renderTemplate("{{ Name }} {{first name}} {{}} {{metadata.}} {{metadata.a.b}} {{ address }} {{name}}", ctx),
        "{{ Name }} {{first name}} {{}} {{metadata.}} {{metadata.a.b}} {{ address }} Ada Lovelace"
      )
      assert.strictEqual(renderTemplate("{ name } {name} {{ name }", ctx), "{ name } {name} {{ name }")
    })

    it("does not expand placeholders inside substituted values", () => {
      const tricky: TemplateContext = {
        name: "{{email}}",
        email: "{{phone}}",
        phone: "{{name}}",
        metadata: { x: "{{metadata.y}}", y: "deep" }
      }
      assert.strictEqual(
        renderTemplate("{{name}}|{{email}}|{{phone}}|{{metadata.x}}", tricky),
        "{{email}}|{{phone}}|{{name}}|{{metadata.y}}"
      )
      // `$&`-style replacement patterns in values are not interpreted either.
      assert.strictEqual(renderTemplate("Hi {{name}}", { ...ctx, name: "$& $1 $$" }), "Hi $& $1 $$")
    })
  })

  describe("template selection", () => {
    const directions: ReadonlyArray<CallDirection> = ["OUTGOING", "INCOMING"]
    const chatStatuses: ReadonlyArray<ChatAppCallStatus> = ["ANSWERED", "UNANSWERED", "FAILED", "BUSY"]
    const chatTemplates = directions.flatMap((process) =>
      chatStatuses.map((callStatus) => ({ process, callStatus, id: `${process}/${callStatus}` }))
    )
    const smsStatuses: ReadonlyArray<SmsCallStatus> = ["ANSWERED", "UNANSWERED"]
    const smsTemplates = smsStatuses.map((callStatus) => ({ callStatus, id: `sms/${callStatus}` }))

    const expected = {
      OUTGOING: {
        ANSWERED: ["OUTGOING/ANSWERED", "sms/ANSWERED"],
        UNANSWERED: ["OUTGOING/UNANSWERED", "sms/UNANSWERED"],
        BUSY: ["OUTGOING/BUSY", "sms/UNANSWERED"],
        FAILED: ["OUTGOING/FAILED", "sms/UNANSWERED"],
        CANCELED: [undefined, "sms/UNANSWERED"]
      },
      INCOMING: {
        ANSWERED: ["INCOMING/ANSWERED", "sms/ANSWERED"],
        UNANSWERED: ["INCOMING/UNANSWERED", "sms/UNANSWERED"],
        BUSY: ["INCOMING/BUSY", "sms/UNANSWERED"],
        FAILED: ["INCOMING/FAILED", "sms/UNANSWERED"],
        CANCELED: [undefined, "sms/UNANSWERED"]
      }
    } as const

    for (const direction of directions) {
      for (const outcome of CallOutcomes) {
        const [chat, sms] = expected[direction][outcome]
        it(`${direction} × ${outcome} → chat ${chat ?? "none"}, sms ${sms}`, () => {
          assert.strictEqual(chatAppTemplateFor(chatTemplates, direction, outcome)?.id, chat)
          assert.strictEqual(chatAppTemplateFor([...chatTemplates].reverse(), direction, outcome)?.id, chat)
          assert.strictEqual(smsTemplateFor(smsTemplates, outcome)?.id, sms)
          assert.strictEqual(smsStatusFor(outcome), sms.slice("sms/".length))
          // Nothing configured for this pair: nothing selected.
          const others = chatTemplates.filter((t) => t.id !== chat)
          assert.strictEqual(chatAppTemplateFor(others, direction, outcome), undefined)
          assert.strictEqual(smsTemplateFor(smsTemplates.filter((t) => t.id !== sms), outcome), undefined)
          assert.strictEqual(chatAppTemplateFor([], direction, outcome), undefined)
          assert.strictEqual(smsTemplateFor([], outcome), undefined)
        })
      }
    }

    it("returns the first matching mapping", () => {
      const dupes = [
        { process: "OUTGOING", callStatus: "BUSY", id: 1 },
        { process: "OUTGOING", callStatus: "BUSY", id: 2 }
      ] as const
      assert.strictEqual(chatAppTemplateFor(dupes, "OUTGOING", "BUSY")?.id, 1)
      assert.strictEqual(chatAppTemplateFor(dupes, "INCOMING", "BUSY"), undefined)
    })
  })

  describe("chat-app language variants", () => {
    const variant = (
      languageCode: string | undefined,
      process: CallDirection = "OUTGOING",
      callStatus: ChatAppCallStatus = "ANSWERED"
    ) => ({
      process,
      callStatus,
      languageCode,
      id: `${process}/${callStatus}/${languageCode ?? "none"}`
    })
    const pick = (
      templates: ReadonlyArray<ReturnType<typeof variant>>,
      contact?: unknown,
      agent?: unknown,
      direction: CallDirection = "OUTGOING",
      outcome: (typeof CallOutcomes)[number] = "ANSWERED"
    ) => chatAppTemplateFor(templates, direction, outcome, { contact, agent })?.id
    // every language of one outcome, plus other outcomes in the contact's language that must never be chosen
    const campaign = [
      variant("en_US"),
      variant("hi_IN"),
      variant("es_ES"),
      variant("pt_BR"),
      variant("es_MX", "INCOMING"),
      variant("es_MX", "OUTGOING", "BUSY")
    ]

    it("normalizeLanguageCode: case and - or _ do not matter; anything not a language tag is undefined", () => {
      const same: Array<[unknown, string]> = [
        ["es_MX", "es_MX"],
        ["es-MX", "es_MX"],
        ["ES-mx", "es_MX"],
        ["es_mx", "es_MX"],
        ["EN", "en"],
        ["fil", "fil"],
        ["hi-in", "hi_IN"]
      ]
      for (const [value, code] of same) assert.strictEqual(normalizeLanguageCode(value), code, JSON.stringify(value))
      for (
        const value of [
          undefined,
          null,
          42,
          true,
          {},
          ["en"],
          "",
          "english",
          "xx_YY",
          "xx",
          "en-Latn-US",
          "en_USA",
          " en",
          "en__US",
          "-US",
          "es-419"
        ]
      ) {
        assert.isUndefined(normalizeLanguageCode(value), JSON.stringify(value))
      }
    })

    it("1. the contact's language, exactly, ignoring case and - or _", () => {
      for (const contact of ["es_ES", "es-ES", "es-es", "ES_es"]) {
        assert.strictEqual(pick(campaign, contact), "OUTGOING/ANSWERED/es_ES", contact)
      }
      assert.strictEqual(
        pick(campaign, "hi_IN", "es_ES"),
        "OUTGOING/ANSWERED/hi_IN",
        "the contact's language before the agent's"
      )
      assert.strictEqual(
        pick(campaign, "en_US", "hi_IN"),
        "OUTGOING/ANSWERED/en_US",
        "a contact in en_US gets en_US though the agent is hi_IN"
      )
      assert.strictEqual(pick(campaign, "pt_BR", "pt_PT"), "OUTGOING/ANSWERED/pt_BR")
    })

    it("2. the agent's language, exactly, when the contact's is not mapped, absent or not a language tag", () => {
      for (const contact of [undefined, null, "fr_FR", "klingon", "xx_YY", 7, { code: "es_ES" }]) {
        assert.strictEqual(pick(campaign, contact, "hi_IN"), "OUTGOING/ANSWERED/hi_IN", JSON.stringify(contact))
      }
      assert.strictEqual(
        pick(campaign, undefined, "hi-in"),
        "OUTGOING/ANSWERED/hi_IN",
        "the agent's ignores case and - or _ too"
      )
      // an exact agent match beats the contact's primary-language match
      assert.strictEqual(pick(campaign, "es_MX", "hi_IN"), "OUTGOING/ANSWERED/hi_IN")
    })

    it("3. the same primary language: the contact's, then the agent's", () => {
      assert.strictEqual(pick(campaign, "es_MX"), "OUTGOING/ANSWERED/es_ES", "contact es_MX → es_ES")
      assert.strictEqual(pick(campaign, "es-mx", "fr_FR"), "OUTGOING/ANSWERED/es_ES")
      assert.strictEqual(
        pick(campaign, "es"),
        "OUTGOING/ANSWERED/es_ES",
        "a bare language matches its regional mappings"
      )
      assert.strictEqual(
        pick(campaign, "hi_US", "es_AR"),
        "OUTGOING/ANSWERED/hi_IN",
        "the contact's primary language before the agent's"
      )
      assert.strictEqual(
        pick(campaign, "fr_FR", "es_AR"),
        "OUTGOING/ANSWERED/es_ES",
        "the agent's primary language when the contact's is not mapped"
      )
      assert.strictEqual(pick(campaign, undefined, "pt"), "OUTGOING/ANSWERED/pt_BR")
      assert.strictEqual(
        pick([variant("hi_IN"), variant("es")], "es_MX"),
        "OUTGOING/ANSWERED/es",
        "a bare mapping serves its regions"
      )
      // several with that primary language: the first configured
      assert.strictEqual(
        pick([variant("en_US"), variant("es_AR"), variant("es_ES")], "es_MX"),
        "OUTGOING/ANSWERED/es_AR"
      )
      assert.strictEqual(
        pick([variant("en_US"), variant("es_ES"), variant("es_AR")], "es_MX"),
        "OUTGOING/ANSWERED/es_ES"
      )
      // en_GB is English: the en_US mapping is found by its primary language before the en_US fallback matters
      assert.strictEqual(pick([variant("hi_IN"), variant("en_US")], "en_GB"), "OUTGOING/ANSWERED/en_US")
    })

    it("4. en_US when neither language is mapped (or none is known)", () => {
      for (
        const [contact, agent] of [[undefined, undefined], ["fr_FR", "de_DE"], ["nonsense", null], [undefined, "ja_JP"]]
      ) {
        assert.strictEqual(pick(campaign, contact, agent), "OUTGOING/ANSWERED/en_US", `${contact} / ${agent}`)
      }
      const enLast = [variant("hi_IN"), variant("es_ES"), variant("en_US")]
      assert.strictEqual(pick(enLast, "fr_FR"), "OUTGOING/ANSWERED/en_US", "en_US wherever it is configured")
      assert.strictEqual(
        chatAppTemplateFor(enLast, "OUTGOING", "ANSWERED")?.id,
        "OUTGOING/ANSWERED/en_US",
        "without languages at all"
      )
      const implicit = [variant("hi_IN"), variant(undefined)]
      assert.strictEqual(
        pick(implicit, "fr_FR"),
        "OUTGOING/ANSWERED/none",
        `a mapping without languageCode is ${DEFAULT_LANGUAGE_CODE}`
      )
      assert.strictEqual(pick(implicit, "en_GB"), "OUTGOING/ANSWERED/none")
    })

    it("5. otherwise the first mapping configured for the pair", () => {
      assert.strictEqual(
        pick([variant("hi_IN")], "fr_FR", "de_DE"),
        "OUTGOING/ANSWERED/hi_IN",
        "a campaign with only hi_IN still sends it"
      )
      assert.strictEqual(pick([variant("hi_IN")]), "OUTGOING/ANSWERED/hi_IN")
      assert.strictEqual(
        pick([variant("es_MX", "INCOMING"), variant("pt_BR"), variant("hi_IN")], "fr_FR"),
        "OUTGOING/ANSWERED/pt_BR"
      )
    })

    it("only the call's direction and outcome are candidates; CANCELED and unmapped pairs send nothing", () => {
      assert.strictEqual(pick(campaign, "es_MX", undefined, "INCOMING"), "INCOMING/ANSWERED/es_MX")
      assert.strictEqual(
        pick(campaign, "hi_IN", undefined, "INCOMING"),
        "INCOMING/ANSWERED/es_MX",
        "the only INCOMING mapping"
      )
      assert.strictEqual(pick(campaign, "es_MX", undefined, "OUTGOING", "BUSY"), "OUTGOING/BUSY/es_MX")
      assert.strictEqual(
        pick(campaign, "es_MX", "hi_IN", "OUTGOING", "ANSWERED"),
        "OUTGOING/ANSWERED/hi_IN",
        "never another outcome's variant"
      )
      assert.isUndefined(pick(campaign, "es_ES", "en_US", "OUTGOING", "FAILED"))
      assert.isUndefined(pick(campaign, "es_ES", "en_US", "OUTGOING", "CANCELED"))
      assert.isUndefined(pick([], "es_ES", "en_US"))
    })

    it("with one mapping per language, the order they are configured in does not matter", () => {
      fc.assert(fc.property(fc.shuffledSubarray(campaign, { minLength: campaign.length }), (shuffled) => {
        assert.strictEqual(pick(shuffled, "es_MX", "hi_IN"), "OUTGOING/ANSWERED/hi_IN")
        assert.strictEqual(pick(shuffled, "es-es"), "OUTGOING/ANSWERED/es_ES")
        assert.strictEqual(pick(shuffled, "fr_FR"), "OUTGOING/ANSWERED/en_US")
      }))
    })

    describe("uniqueness of (process, callStatus, languageCode)", () => {
      const decode = Schema.decodeUnknownEither(ChatAppTemplates)
      const mapping = (process: string, callStatus: string, languageCode?: string) => ({
        templateName: "call_followup",
        process,
        callStatus,
        ...(languageCode === undefined ? {} : { languageCode })
      })
      const refusal = (input: unknown) => {
        const result = decode(input)
        assert.isTrue(Either.isLeft(result), `refused: ${JSON.stringify(input)}`)
        return ParseResult.ArrayFormatter.formatErrorSync(Either.isLeft(result) ? result.left : (undefined as never))
      }

      it("chatAppMappingKey: the triple, languageCode defaulting to en_US", () => {
        assert.strictEqual(
          chatAppMappingKey({ process: "OUTGOING", callStatus: "BUSY", languageCode: "hi_IN" }),
          "OUTGOING/BUSY/hi_IN"
        )
        assert.strictEqual(chatAppMappingKey({ process: "OUTGOING", callStatus: "BUSY" }), "OUTGOING/BUSY/en_US")
        assert.strictEqual(
          chatAppMappingKey({ process: "OUTGOING", callStatus: "BUSY" }),
          chatAppMappingKey({ process: "OUTGOING", callStatus: "BUSY", languageCode: "en_US" })
        )
        assert.notStrictEqual(
          chatAppMappingKey({ process: "OUTGOING", callStatus: "BUSY", languageCode: "en_US" }),
          chatAppMappingKey({ process: "OUTGOING", callStatus: "BUSY", languageCode: "en_GB" })
        )
      })

      it("the same outcome in several languages is accepted, up to 20 mappings of any mix", () => {
        const variants = decode([
          mapping("OUTGOING", "BUSY"),
          mapping("OUTGOING", "BUSY", "hi_IN"),
          mapping("OUTGOING", "BUSY", "es_ES")
        ])
        assert.isTrue(Either.isRight(variants))
        assert.deepStrictEqual(Either.getOrThrow(variants).map((m) => m.languageCode), ["en_US", "hi_IN", "es_ES"])
        const languages = ["en_US", "hi_IN", "es_ES"]
        const twenty = ["INCOMING", "OUTGOING"]
          .flatMap((p) =>
            ["ANSWERED", "UNANSWERED", "FAILED", "BUSY"].flatMap((s) => languages.map((l) => mapping(p, s, l)))
          )
          .slice(0, MESSAGING_LIMITS.chatAppTemplates.max)
        assert.strictEqual(twenty.length, 20)
        assert.isTrue(Either.isRight(decode(twenty)), "20 distinct triples")
        const oneOutcome = [
          "en_US",
          "en_GB",
          "hi_IN",
          "es_ES",
          "es_MX",
          "pt_BR",
          "fr_FR",
          "de_DE",
          "it_IT",
          "ja_JP",
          "ko_KR",
          "zh_CN",
          "ar",
          "ta_IN",
          "te_IN",
          "bn_IN",
          "mr_IN",
          "gu_IN",
          "kn_IN",
          "ml_IN"
        ]
          .map((l) => mapping("INCOMING", "UNANSWERED", l))
        assert.isTrue(Either.isRight(decode(oneOutcome)), "20 languages of one outcome")
        const refused = refusal([...twenty, mapping("INCOMING", "ANSWERED", "fr_FR")])
        assert.include(refused[0]!.message, "1 to 20 mappings")
      })

      it("a repeated triple is refused, naming the index of the repeat", () => {
        const cases: Array<[string, Array<unknown>, number, string]> = [
          [
            "the same explicit language",
            [
              mapping("OUTGOING", "BUSY", "hi_IN"),
              mapping("OUTGOING", "BUSY", "es_ES"),
              mapping("OUTGOING", "BUSY", "hi_IN")
            ],
            2,
            "hi_IN"
          ],
          [
            "the default and an explicit en_US",
            [mapping("OUTGOING", "BUSY"), mapping("INCOMING", "BUSY"), mapping("OUTGOING", "BUSY", "en_US")],
            2,
            "en_US"
          ],
          [
            "two defaults",
            [mapping("INCOMING", "FAILED", "hi_IN"), mapping("INCOMING", "FAILED"), mapping("INCOMING", "FAILED")],
            2,
            "en_US"
          ],
          ["adjacent", [mapping("OUTGOING", "ANSWERED", "es_ES"), mapping("OUTGOING", "ANSWERED", "es_ES")], 1, "es_ES"]
        ]
        for (const [what, input, index, language] of cases) {
          const [issue, ...rest] = refusal(input)
          assert.deepStrictEqual(rest, [], what)
          assert.deepStrictEqual(issue!.path, [index], what)
          assert.include(issue!.message, `languageCode ${language}`, what)
          assert.include(issue!.message, "each combination may appear once", what)
        }
      })
    })
  })

  describe("validation helpers", () => {
    it("isLanguageCode accepts real language tags", () => {
      for (const s of ["en", "en_US", "en_GB", "hi_IN", "es_ES", "fil", "zh_CN", "pt_BR", "ar", "sw", "ta_IN"]) {
        assert.isTrue(isLanguageCode(s), s)
      }
    })

    it("isLanguageCode refuses malformed tags and unknown languages", () => {
      for (
        const s of [
          "",
          "EN",
          "en-US",
          "en_us",
          "en_USA",
          "e",
          "engl",
          "en_",
          "_US",
          " en",
          "en ",
          "xx",
          "xx_YY",
          "qq_US",
          "zzz"
        ]
      ) {
        assert.isFalse(isLanguageCode(s), JSON.stringify(s))
      }
    })

    it("isSmsCampaignName: Unicode letters, digits and spaces, 1–120 characters, not only spaces", () => {
      for (
        const s of [
          "Spring sale",
          "A",
          "1",
          "Promo 2025",
          "Ñandú Ça",
          "नमस्ते ग्राहक",
          "中文 活动",
          "Ζ".repeat(120),
          " padded "
        ]
      ) {
        assert.isTrue(isSmsCampaignName(s), s)
      }
      for (
        const s of [
          "",
          " ",
          "   ",
          "a".repeat(121),
          "sale!",
          "a-b",
          "a_b",
          "tab\there",
          "line\nbreak",
          "😀",
          "50%",
          "\u0301a"
        ]
      ) {
        assert.isFalse(isSmsCampaignName(s), JSON.stringify(s))
      }
    })

    it("isAlphanumericSenderId: 3–11 ASCII letters, digits and spaces with a letter", () => {
      for (const s of ["ACME", "Acme Co", "abc", "A12", "ABCDEFGHIJK", "My Shop 1"]) {
        assert.isTrue(isAlphanumericSenderId(s), s)
      }
      for (const s of ["AB", "ABCDEFGHIJKL", "12345", "   ", "123 456", "ACME!", "Acmé", "AC-ME", ""]) {
        assert.isFalse(isAlphanumericSenderId(s), JSON.stringify(s))
      }
    })

    it("bodyLength counts code points", () => {
      assert.strictEqual(bodyLength(""), 0)
      assert.strictEqual(bodyLength("abc"), 3)
      assert.strictEqual(bodyLength(EMOJI), 1)
      assert.strictEqual(bodyLength("👍🏽"), 2)
      assert.strictEqual(bodyLength("नमस्ते"), 6)
      assert.strictEqual(bodyLength("\uD800"), 1)
      assert.strictEqual(bodyLength(a(1600)), 1600)
      assert.strictEqual(bodyLength(EMOJI.repeat(1600)), 1600)
    })
  })
})
