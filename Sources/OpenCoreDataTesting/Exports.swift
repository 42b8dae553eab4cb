// Tests meet the table batch rules and the demos' models through test support, as before they moved out
// of it (so that a shipped demo links them without linking test support).
@_exported import DemoModels
@_exported import TableUpdates
