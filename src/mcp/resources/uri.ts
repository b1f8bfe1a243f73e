/**
 * knowledge:// URIs: split into path and query, and matched against the resources' URI
 * templates. Pure string work, so the router and the subscriptions share it without importing
 * each other.
 */

export const SCHEME = 'knowledge://';

export interface SplitUri {
  /** The path after `knowledge://`, without trailing slashes. */
  path: string;
  query: URLSearchParams;
}

/** Splits a knowledge:// URI; null when it is not one. */
export function splitKnowledgeUri(uri: string): SplitUri | null {
  const m = /^knowledge:\/\/([^?#]*)(?:\?([^#]*))?$/i.exec(uri);
  if (!m) return null;
  return { path: m[1]!.replace(/\/+$/, ''), query: new URLSearchParams(m[2] ?? '') };
}

/** A percent-decoded, non-empty path variable; null otherwise. */
function decode(segment: string): string | null {
  try {
    const s = decodeURIComponent(segment);
    return s.length > 0 ? s : null;
  } catch {
    return null;
  }
}

export type PathMatcher = (path: string) => Record<string, string> | null;

/**
 * Matches paths against the path of a URI or RFC 6570 template (`knowledge://entries/{id}`);
 * query expressions (`{?limit,cursor}`) are ignored, the query is read separately. A variable
 * takes one or more characters, '/' included, so `projects/team/gamma/tags` names the project
 * `team/gamma` as `projects/team%2Fgamma/tags` does.
 */
export function pathMatcher(uriOrTemplate: string): PathMatcher {
  const path = uriOrTemplate.slice(SCHEME.length).replace(/\{\?[^}]*\}$/, '');
  const names: string[] = [];
  const pattern = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const v = /^\{([^}]+)\}$/.exec(part);
      if (!v) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(v[1]!);
      return '(.+?)';
    })
    .join('');
  const re = new RegExp(`^${pattern}$`);
  return (candidate) => {
    const m = re.exec(candidate);
    if (!m) return null;
    const vars: Record<string, string> = {};
    for (const [i, name] of names.entries()) {
      const value = decode(m[i + 1]!);
      if (value === null) return null;
      vars[name] = value;
    }
    return vars;
  };
}

/** A query parameter as a filter: trimmed, and null when absent or blank. */
export function filterParam(query: URLSearchParams, name: string): string | null {
  const v = query.get(name);
  return v === null || v.trim() === '' ? null : v.trim();
}
