export const GRAPH_TOOLS = [] as const;
