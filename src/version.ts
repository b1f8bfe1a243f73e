/** The server's version, as announced in MCP initialize and /healthz. */
export const VERSION = '0.1.0';
