public enum ArgumentKitPlaceholder {}
