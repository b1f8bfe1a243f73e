import type { JobRunner, Services } from '../../services/index.js';
import type { Scratchpad } from '../../services/diagnostics/scratchpad.js';

/** A toolset as one caller sees it. */
export interface ToolsetState {
  name: string;
  description: string;
  enabled: boolean;
  tools: string[];
}

/** Which toolsets the caller's session lists; the transport owns that state. */
export interface ToolsetSwitch {
  list(): ToolsetState[];
  /** Switches toolsets on or off for this session; returns the names that changed. */
  set(names: readonly string[], enabled: boolean): Promise<string[]>;
}

/** The client's own model, asked through the transport (MCP `sampling/createMessage`). */
export interface ModelSampling {
  complete(req: { prompt: string; system?: string; maxTokens: number }): Promise<{ text: string; model: string }>;
}

/**
 * What a tool handler may use. Transport-neutral: the MCP server, the REST gateway and the
 * legacy SSE transport each build one per call.
 */
export interface ToolContext {
  services: Services;
  /** Who is calling, recorded as the actor of writes: `http:<session>`, `stdio`, `rest`. */
  actor: string;
  /** The transport session, when the transport has one; scopes session-local state. */
  session: string | null;
  signal: AbortSignal;
  /** Reports progress to the caller when it asked for it; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  toolsets: ToolsetSwitch;
  /** Runs jobs for this call: progress goes to the caller, cancellation stops the wait. */
  jobs: JobRunner;
  /** Present when the client can answer model requests (it declared MCP sampling); tools fall back without it. */
  sampling?: ModelSampling | null;
  /** The format the call resolved to (set by invoke), for payloads that echo it (seed 003 query echo). */
  format?: 'markdown' | 'json' | 'both';
  /** This MCP session's working memory (temporary_scratchpad); absent where there is no session (REST). */
  scratchpad?: Scratchpad | null;
}
