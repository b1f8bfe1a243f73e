export const ENTRY_TOOLS = [] as const;
