import type * as z from 'zod';
import type { ChangedEntity } from '../../services/change-feed.js';
import type { Services } from '../../services/index.js';

export const MIME = 'application/json';

/** What a resource's read and completions receive: the services, never the App. */
export interface ResourceContext {
  services: Services;
  /** The URI's query parameters (paging: limit, cursor). */
  query: URLSearchParams;
}

/**
 * A resource, declared once: the router reads it, the subscriptions ask it which changes it
 * covers, and resources/list, resources/templates/list and the docs list it. `P` is what the
 * URI names (path variables and filters), parsed once by `params`.
 */
export interface ResourceDef<P = unknown> {
  name: string;
  title: string;
  description: string;
  /** Integer schema version, published as `_meta.version`. */
  version: number;
  /** A fixed URI, listed in resources/list. */
  uri?: string;
  /** An RFC 6570 URI template, listed in resources/templates/list. */
  template?: string;
  /** The schema of one item, where the resource shares it with the tools. */
  item?: z.ZodType;
  /** What the URI names, from its path variables and query; throws JsonRpcError on bad values. */
  params(vars: Record<string, string>, query: URLSearchParams): P;
  /** `resource_uri` of a page: the resource with its filters, without paging. */
  canonical(params: P): string;
  /** The body of resources/read (a page for all but the schemas). */
  read(params: P, ctx: ResourceContext): Promise<unknown>;
  /** Whether a subscription to these params hears of one changed entity; never, when absent. */
  covers?(params: P, change: ChangedEntity): boolean;
  /** Completions of the template's variables, by name. */
  complete?: Record<string, (value: string, ctx: { services: Services }) => Promise<string[]>>;
}

/** Declares a resource; the identity function, there for `P` to be inferred once for all members. */
export function defineResource<P>(def: ResourceDef<P>): ResourceDef<P> {
  return def;
}

/** Graph entities are nodes, but not entries: only their own entry URI and the history cover them. */
export const isEntry = (c: ChangedEntity) => c.entity === 'node' && c.kind !== 'entity';
