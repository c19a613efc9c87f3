/**
 * A web call from the command line: mints a call with an API key, streams a WAV file (16-bit mono,
 * any rate: brought to 16 kHz) into it in real time as the caller's voice, then a quiet microphone,
 * prints the transcript as it is said, and exits when the call ends (the agent hangs up, or
 * `--hangup-after` seconds after the file, or Ctrl-C).
 *
 *   npx tsx examples/web-call.ts --key aok_… --agent <agentId> [--url http://127.0.0.1:3000] \
 *     [--hangup-after 10] file.wav
 *
 * Exit status: 0 when the call ended, 1 when it could not start (the platform's error is printed).
 */
import {
  joinWebCall,
  SAMPLE_RATE,
  startWebCall,
  streamInRealTime,
  wavTo16k,
  WebCallRefused
} from "@voiceagent/client/WebCall"
import * as fs from "node:fs"
import WebSocket from "ws"

const usage =
  "usage: npx tsx examples/web-call.ts --key aok_… --agent <agentId> [--url http://127.0.0.1:3000] [--hangup-after " +
  "<seconds>] file.wav"

interface Arguments {
  readonly key: string
  readonly agent: string
  readonly url: string
  readonly hangupAfter: number | undefined
  readonly file: string
}

const parse = (argv: ReadonlyArray<string>): Arguments | string => {
  const named = new Map<string, string>()
  const rest: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg.startsWith("--")) {
      const value = argv[i + 1]
      if (value === undefined) return `${arg} needs a value`
      named.set(arg.slice(2), value)
      i++
    } else rest.push(arg)
  }
  const key = named.get("key")
  const agent = named.get("agent")
  const hangupAfter = named.get("hangup-after")
  if (key === undefined || agent === undefined || rest.length !== 1) return usage
  if (hangupAfter !== undefined && !(Number(hangupAfter) >= 0)) return "--hangup-after takes a number of seconds"
  return {
    key,
    agent,
    url: named.get("url") ?? "http://127.0.0.1:3000",
    hangupAfter: hangupAfter === undefined ? undefined : Number(hangupAfter),
    file: rest[0]!
  }
}

const say = (line: string) => process.stdout.write(`${line}\n`)

/** Runs the call; answers the process's exit status. */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const args = parse(argv)
  if (typeof args === "string") {
    console.error(args)
    return 2
  }
  const caller = wavTo16k(new Uint8Array(fs.readFileSync(args.file)))
  let ticket
  try {
    ticket = await startWebCall({
      baseUrl: args.url,
      apiKey: args.key,
      agentId: args.agent,
      metadata: { source: "examples/web-call.ts" }
    })
  } catch (error) {
    console.error(error instanceof WebCallRefused ? `the call was refused: ${error.message}` : String(error))
    return 1
  }
  say(`call ${ticket.sessionId}`)
  let over = false
  const call = joinWebCall(ticket, {
    WebSocket: WebSocket as never,
    onEvent: (event) => {
      if (event.type === "transcript") say(`${event.speaker}${event.interrupted ? " (cut off)" : ""}: ${event.text}`)
      if (event.type === "end") say(`ended: ${event.reason}`)
    }
  })
  process.once("SIGINT", () => call.hangup())
  const ended = call.ended.then((result) => {
    over = true
    return result
  })
  // the file as the caller's voice, then a quiet microphone until the call ends
  await new Promise((resolve) => setTimeout(resolve, 200))
  await streamInRealTime(call, caller, () => over)
  const quiet = (async () => {
    const second = new Int16Array(SAMPLE_RATE)
    while (!over) await streamInRealTime(call, second, () => over)
  })()
  if (args.hangupAfter !== undefined) {
    const timer = setTimeout(() => call.hangup(), args.hangupAfter * 1_000)
    void ended.then(() => clearTimeout(timer))
  }
  const result = await ended
  await quiet
  if (result.reason === undefined) {
    say(`closed: ${result.code}${result.closeReason === "" ? "" : ` ${result.closeReason}`}`)
  }
  return 0
}

if (process.argv[1] !== undefined && import.meta.url === `file://${fs.realpathSync(process.argv[1])}`) {
  main(process.argv.slice(2)).then((status) => process.exit(status), (error) => {
    console.error(error)
    process.exit(1)
  })
}
