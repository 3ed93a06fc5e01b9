/// Placeholder until the LMStudio module lands.
enum LMStudioPlaceholder {}
