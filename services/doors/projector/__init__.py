"""The projector door: `loop.ProjectorLoop` reads the shard feeds and calls the project use
case (`services.usecases.project.Project`); wired by `services.bootstrap`
(`running_projector`, or the `projector` role of `scoreledger serve`)."""
