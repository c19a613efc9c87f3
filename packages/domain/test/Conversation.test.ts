import { assert, describe, it } from "@effect/vitest"
import {
  type ConversationCommand,
  type ConversationEvent,
  ConversationEvent as E,
  type ConversationState,
  defaultSettings,
  initialState,
  type Phase,
  type Response,
  transition
} from "@voiceagent/domain/Conversation"

const settings = defaultSettings("Hello, this is Ada from Acme. How can I help?")
const at = 100_000

const response = (id: number, options: Partial<Response> = {}): Response => ({
  id,
  said: "We open at nine.",
  round: "We open at nine.",
  interruptible: true,
  playing: true,
  complete: false,
  toolsRunning: [],
  then: "listen",
  inContext: true,
  ...options
})

/** One representative state per phase. */
const states: Record<Phase, ConversationState> = {
  Connecting: initialState,
  Listening: { ...initialState, phase: "Listening", lastResponseId: 1 },
  UserSpeaking: {
    ...initialState,
    phase: "UserSpeaking",
    lastResponseId: 1,
    userTurn: { finals: ["When do you open"], interim: "", startedAt: at - 2_000, endedAt: null }
  },
  EndpointPending: {
    ...initialState,
    phase: "EndpointPending",
    lastResponseId: 1,
    userTurn: { finals: ["When do you open?"], interim: "", startedAt: at - 2_000, endedAt: at - 100 }
  },
  Thinking: {
    ...initialState,
    phase: "Thinking",
    lastResponseId: 2,
    response: response(2, { said: "", round: "", playing: false })
  },
  Speaking: { ...initialState, phase: "Speaking", lastResponseId: 2, response: response(2) },
  Ended: { ...initialState, phase: "Ended", lastResponseId: 2 }
}

const events = {
  Started: E.Started({ at }),
  SpeechStarted: E.SpeechStarted({ at }),
  SpeechEnded: E.SpeechEnded({ at }),
  TranscriptInterim: E.Transcript({ text: "tomorrow", isFinal: false, at }),
  TranscriptFinal: E.Transcript({ text: "tomorrow morning.", isFinal: true, at }),
  EndpointTimer: E.TimerFired({ timer: "endpoint", at }),
  InterruptionTimer: E.TimerFired({ timer: "interruption", at }),
  FalseInterruptionTimer: E.TimerFired({ timer: "falseInterruption", at }),
  IdleTimer: E.TimerFired({ timer: "idle", at }),
  FillerTimer: E.TimerFired({ timer: "filler", at }),
  ReplyText: E.ReplyText({ responseId: 2, text: " See you then.", at }),
  ReplyToolCalls: E.ReplyToolCalls({ responseId: 2, calls: [{ id: "call_1", name: "lookup", arguments: "{}" }], at }),
  ReplyDone: E.ReplyDone({ responseId: 2, at }),
  ReplyFailed: E.ReplyFailed({ responseId: 2, reason: "500", at }),
  ToolFinished: E.ToolFinished({ responseId: 2, callId: "call_1", result: "9-5", at }),
  PlaybackStarted: E.PlaybackStarted({ responseId: 2, at }),
  PlaybackFinished: E.PlaybackFinished({ responseId: 2, at }),
  PlaybackCleared: E.PlaybackCleared({ responseId: 2, heard: "We open", at }),
  SpeechFailed: E.SpeechFailed({ responseId: 2, reason: "tts down", at }),
  Stopped: E.Stopped({ at, heard: null }),
  Keypad: E.Keypad({ text: "[keypad] 1234", at }),
  KeyPressed: E.KeyPressed({ at })
} as const

type Expected = "ignored" | { readonly phase: Phase; readonly commands: ReadonlyArray<string> }

const table: Record<Phase, Record<keyof typeof events, Expected>> = {
  Connecting: {
    Started: { phase: "Speaking", commands: ["StopTimer", "Speak", "EndSpeech"] },
    SpeechStarted: "ignored",
    SpeechEnded: "ignored",
    TranscriptInterim: "ignored",
    TranscriptFinal: "ignored",
    EndpointTimer: "ignored",
    InterruptionTimer: "ignored",
    FalseInterruptionTimer: "ignored",
    IdleTimer: "ignored",
    FillerTimer: "ignored",
    ReplyText: "ignored",
    ReplyToolCalls: "ignored",
    ReplyDone: "ignored",
    ReplyFailed: "ignored",
    ToolFinished: "ignored",
    PlaybackStarted: "ignored",
    PlaybackFinished: "ignored",
    PlaybackCleared: "ignored",
    SpeechFailed: "ignored",
    Stopped: { phase: "Ended", commands: ["StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer"] },
    Keypad: "ignored",
    KeyPressed: "ignored"
  },
  Listening: {
    Started: "ignored",
    SpeechStarted: { phase: "UserSpeaking", commands: ["StopTimer"] },
    SpeechEnded: "ignored",
    TranscriptInterim: { phase: "UserSpeaking", commands: ["StopTimer"] },
    TranscriptFinal: { phase: "EndpointPending", commands: ["StopTimer", "StartTimer"] },
    EndpointTimer: "ignored",
    InterruptionTimer: "ignored",
    FalseInterruptionTimer: "ignored",
    IdleTimer: { phase: "Speaking", commands: ["StopTimer", "Speak", "EndSpeech"] },
    FillerTimer: "ignored",
    ReplyText: "ignored",
    ReplyToolCalls: "ignored",
    ReplyDone: "ignored",
    ReplyFailed: "ignored",
    ToolFinished: "ignored",
    PlaybackStarted: "ignored",
    PlaybackFinished: "ignored",
    PlaybackCleared: "ignored",
    SpeechFailed: "ignored",
    Stopped: { phase: "Ended", commands: ["StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer"] },
    Keypad: { phase: "Thinking", commands: ["StopTimer", "StopTimer", "StopTimer", "Commit", "Generate"] },
    KeyPressed: { phase: "Listening", commands: ["StopTimer"] }
  },
  UserSpeaking: {
    Started: "ignored",
    SpeechStarted: "ignored",
    SpeechEnded: { phase: "EndpointPending", commands: ["Finalize", "StartTimer"] },
    TranscriptInterim: { phase: "UserSpeaking", commands: [] },
    TranscriptFinal: { phase: "UserSpeaking", commands: [] },
    EndpointTimer: "ignored",
    InterruptionTimer: "ignored",
    FalseInterruptionTimer: "ignored",
    IdleTimer: "ignored",
    FillerTimer: "ignored",
    ReplyText: "ignored",
    ReplyToolCalls: "ignored",
    ReplyDone: "ignored",
    ReplyFailed: "ignored",
    ToolFinished: "ignored",
    PlaybackStarted: "ignored",
    PlaybackFinished: "ignored",
    PlaybackCleared: "ignored",
    SpeechFailed: "ignored",
    Stopped: { phase: "Ended", commands: ["StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "Commit"] },
    Keypad: { phase: "Thinking", commands: ["StopTimer", "StopTimer", "StopTimer", "Commit", "Generate"] },
    KeyPressed: "ignored"
  },
  EndpointPending: {
    Started: "ignored",
    SpeechStarted: { phase: "UserSpeaking", commands: ["StopTimer"] },
    SpeechEnded: "ignored",
    TranscriptInterim: { phase: "EndpointPending", commands: [] },
    TranscriptFinal: { phase: "EndpointPending", commands: ["StartTimer", "Generate"] },
    EndpointTimer: { phase: "Thinking", commands: ["StopTimer", "StopTimer", "Commit", "Generate"] },
    InterruptionTimer: "ignored",
    FalseInterruptionTimer: "ignored",
    IdleTimer: "ignored",
    FillerTimer: "ignored",
    ReplyText: "ignored",
    ReplyToolCalls: "ignored",
    ReplyDone: "ignored",
    ReplyFailed: "ignored",
    ToolFinished: "ignored",
    PlaybackStarted: "ignored",
    PlaybackFinished: "ignored",
    PlaybackCleared: "ignored",
    SpeechFailed: "ignored",
    Stopped: { phase: "Ended", commands: ["StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "Commit"] },
    Keypad: { phase: "Thinking", commands: ["StopTimer", "StopTimer", "StopTimer", "Commit", "Generate"] },
    KeyPressed: "ignored"
  },
  Thinking: {
    Started: "ignored",
    SpeechStarted: { phase: "Thinking", commands: ["StartTimer"] },
    SpeechEnded: "ignored",
    TranscriptInterim: "ignored",
    TranscriptFinal: "ignored",
    EndpointTimer: "ignored",
    InterruptionTimer: "ignored",
    FalseInterruptionTimer: "ignored",
    IdleTimer: "ignored",
    FillerTimer: "ignored",
    ReplyText: { phase: "Thinking", commands: ["Speak"] },
    ReplyToolCalls: { phase: "Thinking", commands: ["RunTool", "StartTimer"] },
    ReplyDone: { phase: "Listening", commands: ["EndSpeech", "StartTimer"] },
    ReplyFailed: { phase: "Speaking", commands: ["Abort", "StopTimer", "StopTimer", "Speak", "EndSpeech"] },
    ToolFinished: "ignored",
    PlaybackStarted: { phase: "Speaking", commands: ["StopTimer"] },
    PlaybackFinished: "ignored",
    PlaybackCleared: "ignored",
    SpeechFailed: {
      phase: "Ended",
      commands: ["Abort", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "HangUp"]
    },
    Stopped: { phase: "Ended", commands: ["Abort", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer"] },
    Keypad: { phase: "EndpointPending", commands: ["Abort", "StopTimer", "StopTimer", "StopTimer", "StartTimer"] },
    KeyPressed: "ignored"
  },
  Speaking: {
    Started: "ignored",
    SpeechStarted: { phase: "Speaking", commands: ["StartTimer"] },
    SpeechEnded: "ignored",
    TranscriptInterim: "ignored",
    TranscriptFinal: "ignored",
    EndpointTimer: "ignored",
    InterruptionTimer: "ignored",
    FalseInterruptionTimer: "ignored",
    IdleTimer: "ignored",
    FillerTimer: "ignored",
    ReplyText: { phase: "Speaking", commands: ["Speak"] },
    ReplyToolCalls: { phase: "Speaking", commands: ["RunTool"] },
    ReplyDone: { phase: "Speaking", commands: ["EndSpeech"] },
    ReplyFailed: { phase: "Speaking", commands: ["Clear", "Abort", "StopTimer", "StopTimer", "Speak", "EndSpeech"] },
    ToolFinished: "ignored",
    PlaybackStarted: "ignored",
    PlaybackFinished: "ignored",
    PlaybackCleared: "ignored",
    SpeechFailed: {
      phase: "Ended",
      commands: ["Abort", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "HangUp"]
    },
    Stopped: {
      phase: "Ended",
      commands: ["Abort", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "StopTimer", "Commit"]
    },
    Keypad: {
      phase: "EndpointPending",
      commands: ["Clear", "Abort", "StopTimer", "StopTimer", "StopTimer", "StartTimer"]
    },
    KeyPressed: "ignored"
  },
  Ended: Object.fromEntries(Object.keys(events).map((name) => [name, "ignored"])) as Record<
    keyof typeof events,
    Expected
  >
}

const tags = (commands: ReadonlyArray<ConversationCommand>) => commands.map((c) => c._tag)

/** Runs `events` from `state`, collecting every command. */
const run = (state: ConversationState, ...sequence: ReadonlyArray<ConversationEvent>) => {
  const commands: Array<ConversationCommand> = []
  for (const event of sequence) {
    const step = transition(state, event, settings)
    state = step.state
    commands.push(...step.commands)
  }
  return { state, commands }
}

/** The agent in the middle of a complete answer, all of it sent to speech. */
const speaking: ConversationState = {
  ...initialState,
  phase: "Speaking",
  lastResponseId: 2,
  history: [{ role: "user", content: "Tell me about your plans" }],
  response: response(2, {
    said: "We have three plans: basic, plus and pro.",
    round: "We have three plans: basic, plus and pro.",
    complete: true
  })
}

describe("the conversation machine", () => {
  describe("every phase against every event", () => {
    for (const phase of Object.keys(table) as Array<Phase>) {
      for (const [name, event] of Object.entries(events)) {
        it(`${phase} × ${name}`, () => {
          const expected = table[phase][name as keyof typeof events]
          const step = transition(states[phase], event, settings)
          if (expected === "ignored") {
            assert.deepStrictEqual(step.commands, [], "no commands")
            assert.strictEqual(step.state.phase, phase, "same phase")
          } else {
            assert.strictEqual(step.state.phase, expected.phase)
            assert.deepStrictEqual(tags(step.commands), expected.commands)
          }
        })
      }
    }
  })

  it("greets, listens, commits the caller's turn after the endpoint wait, and answers", () => {
    const greeted = run(initialState, E.Started({ at: 0 }))
    assert.deepInclude(
      greeted.commands,
      { _tag: "Speak", responseId: 1, text: settings.greeting, interruptible: true } as any
    )
    const listened = run(
      greeted.state,
      E.PlaybackStarted({ responseId: 1, at: 100 }),
      E.PlaybackFinished({ responseId: 1, at: 3_000 })
    )
    assert.strictEqual(listened.state.phase, "Listening")
    assert.deepStrictEqual(listened.state.history, [{ role: "assistant", content: settings.greeting }])
    const spoke = run(
      listened.state,
      E.SpeechStarted({ at: 4_000 }),
      E.Transcript({ text: "When do you open", isFinal: false, at: 4_500 }),
      E.SpeechEnded({ at: 5_000 }),
      E.Transcript({ text: "When do you open?", isFinal: true, at: 5_100 })
    )
    assert.strictEqual(spoke.state.phase, "EndpointPending")
    // a finished question: the short wait, from when the caller went quiet
    assert.deepInclude(spoke.commands, { _tag: "StartTimer", timer: "endpoint", at: 5_300 } as any)
    // the reply is prepared already, held
    assert.deepInclude(spoke.commands, {
      _tag: "Generate",
      responseId: 2,
      held: true,
      history: [{ role: "assistant", content: settings.greeting }, { role: "user", content: "When do you open?" }]
    } as any)
    const committed = run(spoke.state, E.TimerFired({ timer: "endpoint", at: 5_300 }))
    assert.strictEqual(committed.state.phase, "Thinking")
    assert.deepStrictEqual(tags(committed.commands), ["StopTimer", "StopTimer", "Commit", "Release"])
    const answered = run(
      committed.state,
      E.ReplyText({ responseId: 2, text: "We open at nine.", at: 5_400 }),
      E.ReplyDone({ responseId: 2, at: 5_500 }),
      E.PlaybackStarted({ responseId: 2, at: 5_600 }),
      E.PlaybackFinished({ responseId: 2, at: 7_000 })
    )
    assert.strictEqual(answered.state.phase, "Listening")
    assert.deepStrictEqual(answered.state.history.slice(1), [
      { role: "user", content: "When do you open?" },
      { role: "assistant", content: "We open at nine." }
    ])
  })

  it(
    "does not end the caller's turn during a pause inside a dictated number, and drops the reply prepared too early",
    () => {
      const listening: ConversationState = { ...initialState, phase: "Listening", lastResponseId: 1 }
      const paused = run(
        listening,
        E.SpeechStarted({ at: 0 }),
        E.SpeechEnded({ at: 2_000 }),
        E.Transcript({ text: "My number is four one five, five five five", isFinal: true, at: 2_100 })
      )
      // stopped on digits: the longest wait
      assert.deepInclude(
        paused.commands,
        { _tag: "StartTimer", timer: "endpoint", at: 2_000 + settings.endpointing.maxDelayMs } as any
      )
      // the caller goes on 1.5 s later: no turn was committed, the prepared reply is dropped
      const resumed = run(paused.state, E.SpeechStarted({ at: 3_500 }))
      assert.strictEqual(resumed.state.phase, "UserSpeaking")
      assert.deepStrictEqual(tags(resumed.commands), ["StopTimer", "Abort"])
      assert.isFalse(resumed.commands.some((c) => c._tag === "Commit"))
      const done = run(
        resumed.state,
        E.Transcript({ text: "zero one two three.", isFinal: true, at: 4_800 }),
        E.SpeechEnded({ at: 5_000 }),
        E.TimerFired({ timer: "endpoint", at: 5_000 + settings.endpointing.minDelayMs })
      )
      assert.deepInclude(done.commands, {
        _tag: "Commit",
        speaker: "customer",
        text: "My number is four one five, five five five zero one two three.",
        interrupted: false,
        at: 5_300,
        responseId: 3
      } as any)
    }
  )

  it(
    "barge-in: clears first, aborts the reply, keeps only the words heard, and resumes after a false interruption",
    () => {
      const onset = run(speaking, E.SpeechStarted({ at: 1_000 }))
      assert.deepStrictEqual(onset.commands, [{ _tag: "StartTimer", timer: "interruption", at: 1_200 } as any])
      const confirmed = run(onset.state, E.Transcript({ text: "wait", isFinal: false, at: 1_300 }))
      assert.deepStrictEqual(tags(confirmed.commands), ["Clear", "Abort", "StopTimer", "StopTimer", "StopTimer"])
      assert.strictEqual(confirmed.state.phase, "UserSpeaking")
      const cleared = run(
        confirmed.state,
        E.PlaybackCleared({ responseId: 2, heard: "We have three plans:", at: 1_350 })
      )
      assert.deepInclude(
        cleared.commands,
        {
          _tag: "Commit",
          speaker: "agent",
          text: "We have three plans:",
          at: 1_350,
          interrupted: true,
          responseId: 2
        } as any
      )
      assert.deepStrictEqual(cleared.state.history.at(-1), {
        role: "assistant",
        content: "We have three plans:",
        interrupted: true
      })
      assert.strictEqual(cleared.state.unheard, "basic, plus and pro.")
      // the caller's voice stops with no words after all (a cough): the agent goes on with the rest
      const resumed = run(cleared.state, E.SpeechEnded({ at: 1_500 }), E.TimerFired({ timer: "endpoint", at: 4_000 }))
      assert.deepInclude(
        resumed.commands,
        { _tag: "Speak", responseId: 3, text: "basic, plus and pro.", interruptible: true } as any
      )
      // output of the cut response that arrives late is never played
      const late = run(resumed.state, E.ReplyText({ responseId: 2, text: " And enterprise.", at: 4_100 }))
      assert.deepStrictEqual(late.commands, [])
    }
  )

  it("the media stops mid-answer: the line on the air is kept, cut off, as far as the caller heard it", () => {
    const heard = run(speaking, E.Stopped({ at: 2_000, heard: "We have three" }))
    assert.strictEqual(heard.state.phase, "Ended")
    assert.deepInclude(
      heard.commands,
      { _tag: "Commit", speaker: "agent", text: "We have three", at: 2_000, interrupted: true, responseId: 2 } as any
    )
    // nothing heard of it: no line
    assert.notInclude(tags(run(speaking, E.Stopped({ at: 2_000, heard: "" })).commands), "Commit")
    // the engine cannot tell: the text sent is kept
    assert.deepInclude(run(speaking, E.Stopped({ at: 2_000, heard: null })).commands, {
      _tag: "Commit",
      speaker: "agent",
      text: "We have three plans: basic, plus and pro.",
      at: 2_000,
      interrupted: true,
      responseId: 2
    } as any)
  })

  it("a backchannel or a short noise while the agent talks does not interrupt", () => {
    const speaking: ConversationState = { ...initialState, phase: "Speaking", lastResponseId: 2, response: response(2) }
    const backchannel = run(
      speaking,
      E.SpeechStarted({ at: 1_000 }),
      E.Transcript({ text: "uh-huh", isFinal: false, at: 1_200 }),
      E.TimerFired({ timer: "interruption", at: 1_250 }),
      E.Transcript({ text: "Uh-huh, okay.", isFinal: true, at: 1_600 }),
      E.SpeechEnded({ at: 1_700 })
    )
    assert.isFalse(backchannel.commands.some((c) => c._tag === "Clear"))
    assert.strictEqual(backchannel.state.phase, "Speaking")
    assert.strictEqual(backchannel.state.candidate, null)
    // a noise with no words: the agent pauses at once (words may be on their way), then goes on whole
    const noise = run(
      speaking,
      E.SpeechStarted({ at: 1_000 }),
      E.TimerFired({ timer: "interruption", at: 1_200 }),
      E.PlaybackCleared({ responseId: 2, heard: "We open", at: 1_200 }),
      E.SpeechEnded({ at: 1_400 })
    )
    assert.deepStrictEqual(tags(noise.commands), ["StartTimer", "Pause", "StartTimer", "StopTimer", "Resume"])
    assert.isFalse(noise.commands.some((c) => c._tag === "Clear" || c._tag === "Abort" || c._tag === "Commit"))
    assert.deepStrictEqual([noise.state.phase, noise.state.paused, noise.state.response?.said], [
      "Speaking",
      null,
      "We open at nine."
    ])
    const finished = run(noise.state, E.PlaybackFinished({ responseId: 2, at: 3_000 }))
    assert.strictEqual(finished.state.phase, "Speaking", "an unfinished response does not end")
    const whole = run(
      { ...noise.state, response: { ...noise.state.response!, complete: true } },
      E.PlaybackFinished({ responseId: 2, at: 3_000 })
    )
    assert.deepInclude(
      whole.commands,
      {
        _tag: "Commit",
        speaker: "agent",
        text: "We open at nine.",
        at: 3_000,
        interrupted: false,
        responseId: 2
      } as any
    )
    // paused, then words: an interruption, with what was heard before the pause
    const words = run(
      speaking,
      E.SpeechStarted({ at: 1_000 }),
      E.TimerFired({ timer: "interruption", at: 1_200 }),
      E.PlaybackCleared({ responseId: 2, heard: "We open", at: 1_200 }),
      E.Transcript({ text: "no wait", isFinal: false, at: 1_350 })
    )
    assert.deepStrictEqual(tags(words.commands).slice(3), [
      "Abort",
      "StopTimer",
      "StopTimer",
      "StopTimer",
      "Commit",
      "StartTimer"
    ])
    assert.deepInclude(
      words.commands,
      { _tag: "Commit", speaker: "agent", text: "We open", at: 1_200, interrupted: true, responseId: 2 } as any
    )
    assert.strictEqual(words.state.phase, "UserSpeaking")
    // long speech without words interrupts all the same
    const long = run(
      speaking,
      E.SpeechStarted({ at: 1_000 }),
      E.TimerFired({ timer: "interruption", at: 1_200 }),
      E.TimerFired({ timer: "interruption", at: 2_200 })
    )
    assert.include(tags(long.commands), "Pause")
    assert.include(tags(long.commands), "Abort")
    assert.strictEqual(long.state.phase, "UserSpeaking")
  })

  it(
    "tools: a lookup runs, a filler fills a slow one, the model goes on with the result; end_call says goodbye and " +
      "hangs up",
    () => {
      const thinking: ConversationState = {
        ...initialState,
        phase: "Thinking",
        lastResponseId: 2,
        history: [{ role: "user", content: "What does pro cost?" }],
        response: response(2, { said: "", round: "", playing: false })
      }
      const lookup = { id: "call_1", name: "lookup_knowledge", arguments: "{\"query\":\"pro price\"}" }
      const asked = run(thinking, E.ReplyToolCalls({ responseId: 2, calls: [lookup], at: 1_000 }))
      assert.deepStrictEqual(tags(asked.commands), ["RunTool", "StartTimer"])
      // the model's stream ends its round before the lookup answers: the response waits for the result
      assert.deepStrictEqual(run(asked.state, E.ReplyDone({ responseId: 2, at: 1_010 })).state, asked.state)
      const filled = run(asked.state, E.TimerFired({ timer: "filler", at: 2_000 }))
      assert.deepStrictEqual(filled.commands, [
        { _tag: "Speak", responseId: 2, text: settings.fillerText, interruptible: true } as any
      ])
      const resulted = run(
        filled.state,
        E.ToolFinished({ responseId: 2, callId: "call_1", result: "Pro is 49 a month.", at: 2_500 })
      )
      assert.deepStrictEqual(resulted.commands.at(-1), {
        _tag: "Generate",
        responseId: 2,
        held: false,
        history: [
          { role: "user", content: "What does pro cost?" },
          { role: "assistant", content: "", toolCalls: [lookup] },
          { role: "tool", toolCallId: "call_1", content: "Pro is 49 a month." }
        ]
      } as any)
      const said = run(
        resulted.state,
        E.PlaybackStarted({ responseId: 2, at: 2_100 }),
        E.ReplyText({ responseId: 2, text: "Pro is 49 dollars a month.", at: 2_600 }),
        E.ReplyDone({ responseId: 2, at: 2_700 }),
        E.PlaybackFinished({ responseId: 2, at: 5_000 })
      )
      assert.deepInclude(said.commands, {
        _tag: "Commit",
        speaker: "agent",
        text: `${settings.fillerText} Pro is 49 dollars a month.`,
        at: 5_000,
        interrupted: false,
        responseId: 2
      } as any)

      const ending = run(
        { ...thinking, response: response(2, { said: "", round: "", playing: false }) },
        E.ReplyToolCalls({ responseId: 2, calls: [{ id: "call_9", name: "end_call", arguments: "{}" }], at: 1_000 }),
        E.PlaybackStarted({ responseId: 2, at: 1_100 }),
        E.PlaybackFinished({ responseId: 2, at: 3_000 })
      )
      assert.deepInclude(
        ending.commands,
        { _tag: "Speak", responseId: 2, text: settings.closingText, interruptible: false } as any
      )
      assert.deepStrictEqual(ending.commands.at(-1), { _tag: "HangUp", reason: "agent_ended" } as any)
      assert.strictEqual(ending.state.phase, "Ended")
    }
  )

  it(
    "keypad: an entry is the caller's turn at once, after any words of theirs; during the agent's answer it cuts it " +
      "off like speech",
    () => {
      const listening: ConversationState = {
        ...initialState,
        phase: "Listening",
        lastResponseId: 1,
        history: [{ role: "assistant", content: "Your account number?" }]
      }
      const keyed = run(listening, E.Keypad({ text: "[keypad] 4321", at: 5_000 }))
      assert.strictEqual(keyed.state.phase, "Thinking")
      assert.deepInclude(
        keyed.commands,
        {
          _tag: "Commit",
          speaker: "customer",
          text: "[keypad] 4321",
          at: 5_000,
          interrupted: false,
          responseId: 2
        } as any
      )
      assert.deepStrictEqual((keyed.commands.at(-1) as any).history.at(-1), { role: "user", content: "[keypad] 4321" })
      // words said before the keys are the same turn
      const both = run(states.EndpointPending, E.Keypad({ text: "[keypad] 7", at }))
      assert.deepInclude(
        both.commands,
        {
          _tag: "Commit",
          speaker: "customer",
          text: "When do you open? [keypad] 7",
          at,
          interrupted: false,
          responseId: 2
        } as any
      )

      // mid-answer: cleared at once; the words heard stay the agent's (cut off), then the keys are the turn
      const cut = run(
        speaking,
        E.Keypad({ text: "[keypad] 2", at: 1_000 }),
        E.PlaybackCleared({ responseId: 2, heard: "We have three plans:", at: 1_000 }),
        E.TimerFired({ timer: "endpoint", at: 1_000 })
      )
      assert.deepStrictEqual(tags(cut.commands).filter((t) => t === "Clear" || t === "Commit" || t === "Generate"), [
        "Clear",
        "Commit",
        "Commit",
        "Generate"
      ])
      assert.deepStrictEqual((cut.commands.at(-1) as any).history.slice(-2), [
        { role: "assistant", content: "We have three plans:", interrupted: true },
        { role: "user", content: "[keypad] 2" }
      ])
      assert.isNull(cut.state.unheard)
      // a line that may not be interrupted lets the keys go
      const goodbye: ConversationState = {
        ...speaking,
        response: response(2, { interruptible: false, then: "agent_ended" })
      }
      assert.deepStrictEqual(run(goodbye, E.Keypad({ text: "[keypad] 1", at })), { state: goodbye, commands: [] })
    }
  )

  it(
    "a tool that finishes the agent's part (a transfer): its hand-off line, said whole, then the hang-up with the " +
      "tool's reason",
    () => {
      const thinking: ConversationState = {
        ...initialState,
        phase: "Thinking",
        lastResponseId: 2,
        history: [{ role: "user", content: "Put me through to billing." }],
        response: response(2, { said: "", round: "", playing: false })
      }
      const transfer = { id: "call_7", name: "transfer_call", arguments: "{\"mode\":\"warm\"}" }
      const asked = run(thinking, E.ReplyToolCalls({ responseId: 2, calls: [transfer], at: 1_000 }))
      const warm = run(
        asked.state,
        E.ToolFinished({
          responseId: 2,
          callId: "call_7",
          result: "Transferring.",
          at: 1_100,
          finish: { text: "Connecting you to billing now.", reason: "transferred" }
        })
      )
      assert.deepStrictEqual(tags(warm.commands), ["StopTimer", "Speak", "EndSpeech"])
      assert.deepInclude(
        warm.commands,
        { _tag: "Speak", responseId: 2, text: "Connecting you to billing now.", interruptible: false } as any
      )
      // the caller cannot talk over it, and the model is not asked again
      assert.deepStrictEqual(run(warm.state, E.SpeechStarted({ at: 1_200 })).commands, [])
      const done = run(
        warm.state,
        E.PlaybackStarted({ responseId: 2, at: 1_200 }),
        E.PlaybackFinished({ responseId: 2, at: 3_000 })
      )
      assert.deepStrictEqual(tags(done.commands).filter((t) => t === "Commit" || t === "HangUp" || t === "Generate"), [
        "Commit",
        "HangUp"
      ])
      assert.deepStrictEqual(done.commands.at(-1), { _tag: "HangUp", reason: "transferred" } as any)
      // cold: nothing to say, the hang-up comes as soon as the (empty) response is done
      const cold = run(
        asked.state,
        E.ToolFinished({
          responseId: 2,
          callId: "call_7",
          result: "Transferring.",
          at: 1_100,
          finish: { text: "", reason: "transferred" }
        }),
        E.PlaybackFinished({ responseId: 2, at: 1_100 })
      )
      assert.deepStrictEqual(tags(cold.commands), [
        "StopTimer",
        "EndSpeech",
        "StopTimer",
        "StopTimer",
        "StopTimer",
        "StopTimer",
        "StopTimer",
        "HangUp"
      ])
      assert.strictEqual(cold.state.phase, "Ended")
    }
  )

  it("a model that fails: the fallback line, then the call ends", () => {
    const thinking: ConversationState = {
      ...initialState,
      phase: "Thinking",
      lastResponseId: 2,
      response: response(2, { said: "", round: "", playing: false })
    }
    const failed = run(
      thinking,
      E.ReplyFailed({ responseId: 2, reason: "503", at: 1_000 }),
      E.PlaybackStarted({ responseId: 3, at: 1_100 }),
      E.PlaybackFinished({ responseId: 3, at: 4_000 })
    )
    assert.deepInclude(
      failed.commands,
      { _tag: "Speak", responseId: 3, text: settings.fallbackText, interruptible: false } as any
    )
    assert.deepStrictEqual(failed.commands.at(-1), { _tag: "HangUp", reason: "llm_failed" } as any)
  })

  it("idle: a reminder after the agent finished and the caller stayed silent, then a goodbye and a hang-up", () => {
    const listening: ConversationState = { ...initialState, phase: "Listening", lastResponseId: 1 }
    const reminded = run(listening, E.TimerFired({ timer: "idle", at: 8_000 }))
    assert.deepInclude(
      reminded.commands,
      { _tag: "Speak", responseId: 2, text: settings.idle.reminderText, interruptible: true } as any
    )
    const again = run(
      reminded.state,
      E.PlaybackStarted({ responseId: 2, at: 8_100 }),
      E.PlaybackFinished({ responseId: 2, at: 9_000 }),
      E.TimerFired({ timer: "idle", at: 17_000 })
    )
    assert.deepInclude(again.commands, { _tag: "StartTimer", timer: "idle", at: 17_000 } as any)
    assert.deepInclude(
      again.commands,
      { _tag: "Speak", responseId: 3, text: settings.idle.goodbyeText, interruptible: false } as any
    )
    const ended = run(
      again.state,
      E.PlaybackStarted({ responseId: 3, at: 17_100 }),
      E.PlaybackFinished({ responseId: 3, at: 19_000 })
    )
    assert.deepStrictEqual(ended.commands.at(-1), { _tag: "HangUp", reason: "idle" } as any)
    // reminders are said, not part of the model's context
    assert.deepStrictEqual(ended.state.history, [])
  })
})
