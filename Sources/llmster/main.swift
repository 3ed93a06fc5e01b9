print("llmster")
