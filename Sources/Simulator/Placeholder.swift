/// Placeholder until the Simulator module lands.
enum SimulatorPlaceholder {}
