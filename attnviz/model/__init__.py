"""Loading a model and everything about where and how it runs: names, folders and hub ids (`load`,
`catalogue`, `hub`, `objects`), what a deployment allows (`policy`), devices, placement over devices, precision,
memory, how a model is used (`usage`) and how much of a long text it reads (`long_texts`)."""
